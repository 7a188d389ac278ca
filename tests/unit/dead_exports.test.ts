// No dead exports: every export of a file under src/ is used by some other file that is not a
// test, so `export` tells a reader "the program needs this from outside".
//
// Users are the repository's TypeScript / JavaScript / HTML files outside tests/: src/, scripts/,
// integrations/ and the root configs (vite.config.ts, playwright.config.ts, index.html). Files
// under tests/ do not count: a test reaches a module through its public functions, so an export
// only a test imports is a test hook. Two exceptions: src/reference/ (the CPU references exist to
// be checked against), whose exports tests may be the only users of, and the few seams in ALLOWED.
// What counts as a use (imports, re-exports, dynamic import(), import types, import.meta.glob,
// page entries and Worker URLs named by string) is spelled out in tests/unit/lib/export_scan.ts.
// Not checked: src/engine/wasm/as/ (its exports are the WASM module's ABI, read by name from the
// compiled module), generated *.gen.ts files and .d.ts declarations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unusedExports } from './lib/export_scan';

const ROOT = join(__dirname, '..', '..');

/**
 * Exports kept although no other file uses them, each with its reason: the list only shrinks. An
 * entry that becomes used (or is no longer exported) fails the test until it is removed.
 */
const ALLOWED: Record<string, string> = {
  // Test seams: the test cannot go through the module's public function.
  'src/app/views/compare_between.ts:compareDefaultPair':
    "the Compare view's pick, inside a lit-html section that unit tests (no DOM) cannot render",
  'src/cli/commands/run.ts:planRun':
    "hlab run's plan, compared with the app's plan; the command itself needs a browser and an output folder",
  'src/corpus/procedural_harness.ts:createProceduralHarness':
    "procedural harnesses run only inside runProceduralExpert; the tests read a draw's surface and contexts, which an episode does not carry",
  'src/corpus/tokenizer_v2.ts:corpusV2Plan':
    'which tasks under which harnesses the corpus renders; the rendered documents do not name them',
  'src/experiment/run_checkpoint.ts:encodeRunCheckpoint':
    "the codec's round trip without a store (saveRunCheckpoint, its only caller, needs an IndexedDB store)",
  'src/experiment/feasibility.ts:cellFeasibility':
    "one cell's verdict; specFeasibility runs it over every cell of a spec (thousands of expert episodes)",
  'src/tasks/common.ts:verification': "the score formula over synthetic sub-check lists; a task's verifier only ever makes its own",
  'src/rl/loss_ref.ts:rlStepRef': 'the CPU reference of the RL step (as src/reference/), checked against the GPU and WASM trainers',
  'src/rl/advantages.ts:grpoAdvantages': 'the CPU reference of the grpo_advantage kernel (as src/reference/), checked against the GPU',
  'src/rl/advantages.ts:ppoAdvantages': 'the CPU reference of the gae kernel (as src/reference/), checked against the GPU',
  'src/pretrain/sft.ts:refSftTrainer': "the reference SFT trainer (as src/reference/) both engines' SFT steps are checked against",
  'src/harness/expert.ts:adapterFor':
    "the expert's per-harness tool adapter, driven by tests on hand-made tasks runExpertEpisode's task suites do not hold",
  // Not yet reworked: only a test imports each; its test is to go through the public function named.
  'src/engine/wasm/wasm_sft.ts:sftLossAndGrads': 'the CPU SFT step loss and gradients, checked against src/reference like a kernel',
  'src/episode/host_pool.ts:initTokenizer': 'pending: test through the host pool',
  'src/experiment/feasibility.ts:specCells': 'pending: test through specFeasibility',
  'src/report/stats.ts:mcnemarExact': 'pending: test through the paired comparison',
  'src/rl/update.ts:policyTokenEntropy': 'pending: test through filteredUpdate',
};

/** Repository-relative paths of the .ts / .mjs / .html files under `dir` (node_modules aside). */
function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
    return /\.(ts|mjs|html)$/.test(e.name) ? [p] : [];
  });
}

/** Whether a file's own exports are checked (the others only count as users). */
const checked = (p: string) =>
  p.startsWith('src/') && p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('.gen.ts') && !p.startsWith('src/engine/wasm/as/');

/** Whether a use by file `user` of an export of `module` counts: tests count only for the CPU references. */
const counts = (user: string, module: string) => !user.startsWith('tests/') || module.startsWith('src/reference/');

let cached: string[] | null = null;
/** Every unused export of the repository, 'path:name' (scanned once per test file). */
function repositoryUnused(): string[] {
  if (cached) return cached;
  const rootFiles = readdirSync(ROOT).filter((f) => /\.(ts|html)$/.test(f));
  const paths = [...walk('src'), ...walk('tests'), ...walk('scripts'), ...walk('integrations'), ...rootFiles];
  cached = unusedExports(new Map(paths.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')])), checked, counts);
  return cached;
}

describe('dead exports', () => {
  it('the scan finds unused exports and counts every kind of use (a synthetic repository)', () => {
    const files = new Map<string, string>([
      [
        'src/a.ts',
        [
          'export const named = 1;',
          'export const dead = 2;',
          'export function starred() {}',
          'export const dyn = 3;',
          'export const viaThen = 4;',
          'export const member = 5;',
          'export interface Typed {}',
          'export const page = 6;',
          'export type OnlyHere = number;',
          'const x: OnlyHere = named;',
        ].join('\n'),
      ],
      ['src/barrel.ts', "export * from './a';\nexport { dead2 } from './d';"],
      ['src/d.ts', 'export const dead2 = 1;'],
      ['src/worker.ts', 'export const w1 = 1;\nexport type W2 = string;'],
      [
        'src/b.ts',
        [
          "import { named } from './a';",
          "import { starred } from './barrel';",
          "import * as ns from './a';",
          "const { dyn } = await import('./a.ts');",
          "import('./a').then(({ viaThen }) => viaThen);",
          'ns.member;',
          "new Worker(new URL('./worker.ts', import.meta.url));",
        ].join('\n'),
      ],
      ['tests/x.spec.ts', "type T = import('../src/a').Typed;\nwindow.hlabRun('/src/a.ts', 'page');"],
      ['src/c.ts', 'export const unusedToo = 1;'],
    ]);
    const isSrc = (p: string) => p.startsWith('src/');
    expect(unusedExports(files, isSrc)).toEqual([
      'src/a.ts:OnlyHere',
      'src/a.ts:dead',
      'src/barrel.ts:dead2',
      'src/c.ts:unusedToo',
      'src/d.ts:dead2',
    ]);
    // A new export nobody imports is reported; importing it clears it.
    files.set('src/e.ts', 'export function fresh() {}');
    expect(unusedExports(files, isSrc)).toContain('src/e.ts:fresh');
    files.set('src/f.ts', "import { fresh } from './e';");
    expect(unusedExports(files, isSrc)).not.toContain('src/e.ts:fresh');
  });

  it("under this repository's rule a test is no user, except of a CPU reference (through a barrel too)", () => {
    const files = new Map<string, string>([
      ['src/lib.ts', 'export const onlyTested = 1;\nexport const used = 2;'],
      ['src/barrel.ts', "export { onlyTested } from './lib';\nexport * from './reference/r';"],
      ['src/reference/r.ts', 'export const ref = 1;\nexport const refUnused = 2;'],
      ['src/app.ts', "import { used } from './lib';"],
      ['tests/x.test.ts', "import { onlyTested } from '../src/lib';\nimport { ref } from '../src/barrel';"],
    ]);
    const isSrc = (p: string) => p.startsWith('src/');
    expect(unusedExports(files, isSrc)).toEqual(['src/barrel.ts:onlyTested', 'src/reference/r.ts:refUnused']);
    expect(unusedExports(files, isSrc, counts)).toEqual([
      'src/barrel.ts:onlyTested',
      'src/lib.ts:onlyTested',
      'src/reference/r.ts:refUnused',
    ]);
  });

  it('every export under src/ is used by another file (or listed, with its reason)', () => {
    const dead = repositoryUnused().filter((k) => !(k in ALLOWED));
    expect(dead, 'drop `export` from these (or delete them if their own file does not use them either)').toEqual([]);
  });

  it('every allowlist entry is still an unused export (a fixed one must be removed from the list)', () => {
    const unused = new Set(repositoryUnused());
    expect(Object.keys(ALLOWED).filter((k) => !unused.has(k))).toEqual([]);
  });
});
