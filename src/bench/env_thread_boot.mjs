// Worker-thread entry of src/bench/env_replays.ts: registers the tsx loader in this thread (the
// parent's loader hooks are not inherited by worker threads on Node 20), then loads env_thread.ts.
import { register } from 'tsx/esm/api';

register();
await import('./env_thread.ts');
