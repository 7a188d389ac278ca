import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startServer } from '../../src/serve/server';
import { runExpertEpisode } from '../../src/harness/expert';
import { taskFromId } from '../../src/tasks';
import { buildExport } from '../../src/export/dataset';
import { slimeJsonl, verlRow } from '../../src/export/writers';

/** A started server. */
type RunningServer = Awaited<ReturnType<typeof startServer>>;

const ROOT = resolve(__dirname, '../..');
const TOKEN = 'python-client-token';

/** python3 (standard library only) running integrations/test_hlab_client.py against the real server. */
function python(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((res, rej) => {
    const p = spawn('python3', ['-B', 'integrations/test_hlab_client.py'], {
      cwd: ROOT,
      env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code, out }));
  });
}

describe('integrations/hlab_client.py against hlab serve', () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer({ workers: 1, token: TOKEN, limits: { maxBodyBytes: 256 * 1024 } });
  });
  afterAll(() => s.close());

  it('the Python standard-library client passes its unittest suite (expert episode, exported rows, errors)', async () => {
    const task = 'errands/todo-update/t2/1000003';
    const harness = 'S2-T2-O1-C0-W2';
    const demo = runExpertEpisode(taskFromId(task), harness);
    expect(demo.pass).toBe(true);
    const ds = buildExport({ tasks: 1, evalTasks: 0, K: 2, suites: ['workspace'], maxTurns: 3 });
    const rows = { verl_extra_info: verlRow(ds.train[0]).extra_info, slime_line: slimeJsonl(ds.train.slice(1, 2)).trim() };
    const r = await python({
      HLAB_SERVE_URL: s.url,
      HLAB_SERVE_TOKEN: TOKEN,
      HLAB_TEST_DEMO: JSON.stringify({ suite: 'errands', task, harness, actions: demo.turns.map((t) => t.action) }),
      HLAB_TEST_ROWS: JSON.stringify(rows),
    });
    expect(r.out).toMatch(/Ran 5 tests/);
    expect(r.out).toMatch(/\nOK\s*$/);
    expect(r.code).toBe(0);
    expect(s.stats.status5xx).toBe(0);
    expect(s.stats.held).toBe(0); // every episode the client made was deleted
  }, 120_000);
});
