import { it, expect } from 'vitest';
import { withBrowser } from '../../src/cli/browser';
import { PAGE_QUERY_BINDING } from '../../src/page/protocol';

it('the CLI opens its page in headless Chromium through Vite and calls a typed entry point', async () => {
  const r = await withBrowser((s) => s.call('capabilities', null));
  expect(r.webgpu).toBe(true);
  expect(r.crossOriginIsolated).toBe(true);
  expect(r.hardwareConcurrency).toBeGreaterThan(0);
}, 60_000);

it("the page's questions reach the command's answers; one it does not answer fails in the page, naming it", async () => {
  const asked: unknown[] = [];
  const r = await withBrowser(
    (s) =>
      s.page.evaluate(async (binding) => {
        const ask = window[binding as typeof PAGE_QUERY_BINDING]!;
        const model = await ask({ name: 'pytorchModel', arg: { C: 8, L: 1, NH: 2, V: 16, B: 1, T: 4, threads: 1, seed: 3 } });
        const step = await ask({ name: 'pytorchStep', arg: null });
        return { model, step };
      }, PAGE_QUERY_BINDING),
    {
      answers: {
        pytorchModel: async (m) => (
          asked.push(m), { torch: 'fake', threads: m.threads, blas: { path: null, kind: 'unknown' as const, threads: 1 } }
        ),
        pytorchStep: async () => 12.5,
      },
    },
  );
  expect(r).toEqual({ model: { torch: 'fake', threads: 1, blas: { path: null, kind: 'unknown', threads: 1 } }, step: 12.5 });
  expect(asked).toEqual([{ C: 8, L: 1, NH: 2, V: 16, B: 1, T: 4, threads: 1, seed: 3 }]);
  const err = await withBrowser((s) =>
    s.page.evaluate(
      (binding) =>
        window[binding as typeof PAGE_QUERY_BINDING]!({ name: 'pytorchStep', arg: null }).then(
          String,
          (e: Error) => `rejected: ${e.message}`,
        ),
      PAGE_QUERY_BINDING,
    ),
  );
  expect(err).toContain("rejected: page question 'pytorchStep': this command does not answer it");
}, 120_000);
