// Worker-thread entry of the engine snapshotter: loads the TypeScript sources through tsx (as
// cli/bin.js does for the process) and runs the job in snapshotWorkerMain.ts.
import { register } from 'tsx/esm/api';

register();
await import('./snapshotWorkerMain.ts');
