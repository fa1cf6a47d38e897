// Worker-thread entry of the projection runner: loads the TypeScript sources through the
// project's loader (as cli/bin.js does for the process) and runs cli/projectionWorkerMain.ts.
import './register.js';

await import('./projectionWorkerMain.ts');
