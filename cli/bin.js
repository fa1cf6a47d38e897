#!/usr/bin/env node
// Entry point of the `exchange` command: loads the TypeScript sources through the project's
// loader (cli/register.js).
import './register.js';

await import('./main.ts');
