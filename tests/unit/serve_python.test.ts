import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { startServer } from '../../src/serve/server';
import { runExpertEpisode } from '../../src/harness/expert';
import { taskFromId } from '../../src/tasks';
import { buildExport, type ExportDataset } from '../../src/export/dataset';
import { writeExport } from '../../src/export/writers';

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

/** The first train row's verl extra_info and the second's slime line, read back from what `hlab export` writes. */
async function exportedRows(ds: ExportDataset): Promise<{ verl_extra_info: unknown; slime_line: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hlab-serve-rows-'));
  try {
    writeExport(ds, 'verl', join(dir, 'verl'));
    writeExport(ds, 'slime', join(dir, 'slime'));
    const buf = readFileSync(join(dir, 'verl', 'train.parquet'));
    const verl = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) });
    return { verl_extra_info: verl[0].extra_info, slime_line: readFileSync(join(dir, 'slime', 'train.jsonl'), 'utf8').split('\n')[1] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    const rows = await exportedRows(ds);
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
