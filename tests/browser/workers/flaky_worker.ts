// Test worker for the pool: can answer, throw, hang, or die on request.
import { expose } from 'comlink';

const api = {
  calls: 0,
  async work(mode: 'ok' | 'throw' | 'hang' | 'die', x: number): Promise<number> {
    api.calls++;
    if (mode === 'throw') throw new Error(`asked to throw on ${x}`);
    if (mode === 'hang') await new Promise(() => {});
    if (mode === 'die') {
      setTimeout(() => {
        throw new Error('uncaught in worker');
      });
      await new Promise(() => {});
    }
    return x * x;
  },
  callCount(): number {
    return api.calls;
  },
};
export type FlakyApi = typeof api;
expose(api);
