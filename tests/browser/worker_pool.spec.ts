import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/worker_pool.entry.ts';

test('pool runs many jobs over few workers, results in order', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ out: number[]; stats: Record<string, number> }>(ENTRY, 'manyJobs');
  expect(r.out).toEqual(Array.from({ length: 20 }, (_, i) => i * i));
  expect(r.stats).toMatchObject({ completed: 20, retries: 0, replaced: 0 });
});

for (const [mode, counter] of [
  ['throw', 'thrown'],
  ['hang', 'timeouts'],
  ['die', 'crashes'],
] as const) {
  test(`a worker that ${mode}s is replaced and the job retried`, async ({ gpuPage }) => {
    const r = await gpuPage.run<{ value: number; after: number[]; stats: Record<string, number> }>(ENTRY, 'failOnce', mode);
    expect(r.value).toBe(49);
    expect(r.after).toEqual([1, 4, 9]);
    expect(r.stats[counter]).toBe(1);
    expect(r.stats).toMatchObject({ retries: 1, replaced: 1, completed: 4 });
  });
}

test('a job that always throws surfaces its error after the retries', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ msg: string; ok: number; stats: Record<string, number> }>(ENTRY, 'alwaysThrows');
  expect(r.msg).toContain('asked to throw on 3');
  expect(r.ok).toBe(16);
  expect(r.stats).toMatchObject({ thrown: 3, retries: 2, replaced: 3, completed: 1 });
});
