/**
 * `hlab heldout` (src/cli/commands/heldout.ts) and the per-harness pieces of
 * src/pretrain/heldout.ts: level means over an orthogonal array, every task under every harness,
 * and the report on the shipped base checkpoint (CPU engine in Node), whose `base` set must equal
 * the per-harness loss of the base harness (same rows, same scorer).
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Tokenizer } from '../../src/model/tokenizer';
import { heldOutByHarness, heldOutTasks, levelMeans } from '../../src/pretrain/heldout';
import { registerHeldOut } from '../../src/cli/commands/heldout';
import { UsageError } from '../../src/cli/cli_util';
import { decodeBaseCheckpoint, encodeBaseCheckpoint } from '../../src/model/checkpoint';
import { selectTrainingOA } from '../../src/design/selection';
import { BASE_HARNESS } from '../../src/design/space';
import { cliJson, runCli } from './lib/cli_in_process';

const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')));
/** `hlab heldout`'s options in these tests; a test appends the ones it changes (the last one given wins). */
const ARGS = [
  'heldout',
  ...['--init', 'base', '--preset', 'mini', '--harnesses', 'training', '--suites', 'workspace,errands', '--max-tier', '1'],
  ...['--tasks', '2', '--seed', '5', '--threads', '1', '--batch', '4'],
];

/** `hlab heldout` in process with `more` options. @returns the error it threw (undefined when none) */
async function heldoutError(...more: string[]): Promise<Error | undefined> {
  return (await runCli([registerHeldOut], ...ARGS, ...more)).error;
}

/** What `hlab heldout --json` prints (src/cli/commands/heldout.ts module doc). */
interface Report {
  budget: { maxT: number; actionReserve: number };
  sets: Record<string, number>;
  perHarness: { harness: string; loss: number }[];
  levelMeans: Record<string, Record<string, number>>;
}

describe('levelMeans', () => {
  it('is the unweighted mean per component level; black-box ids and non-finite values are skipped', () => {
    const m = levelMeans([
      { harness: 'S0-T0-O0-C0-W0', loss: 1 },
      { harness: 'S0-T1-O1-C1-W1', loss: 3 },
      { harness: 'S1-T1-O0-C1-W0', loss: 5 },
      { harness: 'S1-T0-O1-C0-W1', loss: Number.NaN },
      { harness: 'bb-coding-cli', loss: 100 },
    ]);
    expect(m.S).toEqual({ S0: 2, S1: 5 });
    expect(m.T).toEqual({ T0: 1, T1: 4 });
    expect(m.W).toEqual({ W0: 3, W1: 3 });
    expect(Object.keys(m)).toEqual(['S', 'T', 'O', 'C', 'W']);
    expect(() => levelMeans([{ harness: 'S0-T9-O0-C0-W0', loss: 1 }])).toThrow(/out of range/);
  });

  it('over the 18 training harnesses each level averages 6 of them (the OA balance)', () => {
    const training = selectTrainingOA().training;
    // Loss = the T level's index: the T means recover 0, 1, 2 and every other component averages to 1.
    const m = levelMeans(training.map((h) => ({ harness: h, loss: Number(h.split('-')[1][1]) })));
    expect(m.T).toEqual({ T0: 0, T1: 1, T2: 2 });
    for (const c of ['S', 'O', 'C', 'W']) for (const v of Object.values(m[c])) expect(v).toBeCloseTo(1, 12);
  });
});

describe('heldOutByHarness', () => {
  it('scores every task under every harness and reports rows and tokens', () => {
    const tasks = heldOutTasks(2, 5, 1, ['workspace', 'errands']);
    const limits = { maxT: 512, actionReserve: 128 };
    // Charge each scored token 2 nats: every finite loss is exactly 2; tokens are the masks' sums.
    const score = (b: { mask: Float32Array }) => {
      const tokens = b.mask.reduce((a, x) => a + x, 0);
      return { nll: 2 * tokens, tokens };
    };
    const r = heldOutByHarness(tok, tasks, [BASE_HARNESS, 'S1-T1-O1-C1-W1'], limits, 3, score);
    expect(r.map((x) => x.harness)).toEqual([BASE_HARNESS, 'S1-T1-O1-C1-W1']);
    for (const x of r) {
      expect(x.episodes).toBe(2);
      expect(x.rows).toBeGreaterThanOrEqual(2);
      expect(x.tokens).toBeGreaterThan(10);
      expect(x.loss).toBe(2);
    }
    // W1's plan message adds scored tokens over the base harness's.
    expect(r[1].tokens).toBeGreaterThan(r[0].tokens);
  });
});

describe('hlab heldout', () => {
  it('bad options are one UsageError naming the option, before any engine starts', async () => {
    const bad = async (...more: string[]) => {
      const e = await heldoutError(...more);
      expect(e, more.join(' ')).toBeInstanceOf(UsageError);
      return (e as Error).message;
    };
    expect(await bad('--suites', 'workspace,chores')).toMatch(/--suites 'workspace,chores'.*bad entry 'chores'/);
    await bad('--harnesses', 'S9-T0-O0-C0-W0');
    expect(await bad('--init', '/nonexistent/x.ckpt')).toMatch(/--init: no such file/);
    expect(await bad('--preset', 'base')).toMatch(/no shipped base for --preset base/);
    const dir = mkdtempSync(join(tmpdir(), 'hl-heldout-'));
    writeFileSync(join(dir, 'junk.ckpt'), 'not a checkpoint');
    await bad('--init', join(dir, 'junk.ckpt'));
    const shipped = await decodeBaseCheckpoint(new Uint8Array(readFileSync(new URL('../../public/base-mini.ckpt', import.meta.url))));
    const { actionReserve: _, ...noBudget } = shipped.header.metadata;
    const { bytes } = await encodeBaseCheckpoint(shipped.header.config, shipped.params, shipped.header.tokenizer, noBudget);
    writeFileSync(join(dir, 'nobudget.ckpt'), bytes);
    expect(await bad('--init', join(dir, 'nobudget.ckpt'))).toMatch(/records no action reserve/);
  });

  it("--harnesses training (the default) measures the 18 orthogonal-array harnesses, in the array's order", async () => {
    const r = await cliJson<Report>([registerHeldOut], ...ARGS, '--suites', 'workspace', '--tasks', '1');
    expect(r.perHarness.map((h) => h.harness)).toEqual([...selectTrainingOA().training]);
  }, 60_000);

  it("measures the shipped base: finite losses, level means of the harnesses given, the base set equal to the base harness's row", async () => {
    const harnesses = ['--harnesses', `${BASE_HARNESS},S1-T1-O2-C2-W0`];
    const r = await cliJson<Report>([registerHeldOut], ...ARGS, ...harnesses);
    expect(Object.keys(r.sets)).toEqual(['procedural', 'training', 'base']);
    for (const v of Object.values(r.sets)) expect(Number.isFinite(v) && v > 0).toBe(true);
    expect(r.perHarness.map((h) => h.harness)).toEqual([BASE_HARNESS, 'S1-T1-O2-C2-W0']);
    expect(r.sets.base).toBeCloseTo(r.perHarness[0].loss, 5);
    expect(r.levelMeans.T).toEqual({ T0: r.perHarness[0].loss, T1: r.perHarness[1].loss });
    expect(r.budget).toEqual({ maxT: 512, actionReserve: 128 });
    // Without --json the same report is printed as text (console.log).
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((l: string) => void lines.push(l));
    try {
      expect((await runCli([registerHeldOut], ...ARGS, ...harnesses)).error).toBeUndefined();
    } finally {
      log.mockRestore();
    }
    const text = lines.join('\n');
    expect(text).toContain(`level means T: T0 ${r.perHarness[0].loss.toFixed(3)}`);
    expect(text).toContain(`${BASE_HARNESS}  `);
  }, 60_000);
});
