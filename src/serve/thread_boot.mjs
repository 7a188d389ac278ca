// Worker-thread entry of `hlab serve` (pool.ts): registers the tsx loader in this thread —
// loader hooks of the parent are not inherited by worker threads on Node 20 — then loads
// the TypeScript worker module thread.ts.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
