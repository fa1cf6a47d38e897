// Worker-thread entry of `npm run bench:ws`: loads the TypeScript subscriber code through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./wsSubscribers.ts');
