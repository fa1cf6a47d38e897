// Registers the project's TypeScript loader (cli/tsLoader.js) for this thread and turns source
// maps on, so stack traces name the .ts lines. Imported first by cli/bin.js; `node --import
// ./cli/register.js` does the same for a benchmark that runs the engine in-process.

import { register } from 'node:module';

register('./tsLoader.js', import.meta.url);
process.setSourceMapsEnabled(true);
