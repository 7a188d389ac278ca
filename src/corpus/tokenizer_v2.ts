/**
 * The corpus of tokenizer v2 (public/tokenizer-v2.json): the texts the policy reads and writes,
 * i.e. expert episodes on TRAIN-split tasks under the 18 training harnesses and under procedural
 * harnesses, split at the role markers as `encodeContext` splits them (src/episode/rows.ts).
 *
 * Invariant: nothing the evaluation is about is in it — no test-split task, no held-out in-space
 * configuration, no black-box harness — so the vocabulary does not leak the held-out renders
 * (`heldOutRenderCorpus` builds those for measuring compression only). Deterministic in (seed,
 * options) via `Rng.derive(seed, 'tokenizer-v2', …)`; a `maxBytes` cap drops whole episodes
 * uniformly; the shipped file is pinned by tests/unit/tokenizer_v2.test.ts.
 */
import { DEFAULT_SPACE, selectTraining } from '../design';
import { ASSISTANT_ID, CODING_CLI_ID, runExpertEpisode, type ExpertEpisode } from '../harness';
import { runProceduralExpert } from './procedural_harness';
import { SUITE_NAMES, taskSet, type SuiteName, type Task } from '../tasks';
import { Rng } from '../util/rng';

/** Role markers as rendered by src/harness/render.ts; `encodeContext` maps them to special ids. */
const MARKER_RE = /<\|(?:system|user|assistant|tool|end)\|>/g;

/** The generator configuration of the shipped v2 file (`hlab tokenizer --corpus v2`). */
interface CorpusV2Options {
  /** Train tasks per suite rendered under every one of the 18 training harnesses (default 6). */
  tasksPerSuite?: number;
  /** Train tasks per suite, each rendered under its own procedural harness (default 108). */
  proceduralPerSuite?: number;
  /** Cap on the corpus in UTF-8 bytes; whole episodes past it are dropped (default 6 000 000). */
  maxBytes?: number;
}

/** Defaults of `CorpusV2Options` (the shipped tokenizer-v2.json was built with these, seed 0). */
const CORPUS_V2_DEFAULTS: Readonly<Required<CorpusV2Options>> = Object.freeze({
  tasksPerSuite: 6,
  proceduralPerSuite: 108,
  maxBytes: 6_000_000,
});

/**
 * The documents of one episode: every turn's context spans (split at role markers) and action.
 * @returns non-empty strings, in turn order
 */
function episodeDocuments(ep: ExpertEpisode): string[] {
  const out: string[] = [];
  for (const t of ep.turns) {
    for (const span of t.context.split(MARKER_RE)) if (span.length > 0) out.push(span);
    if (t.action.length > 0) out.push(t.action);
  }
  return out;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** An episode to render: a task under a named harness, or under procedural harness `proc` (its seed). */
type CorpusJob = { task: Task; harness: string } | { task: Task; proc: number };

function runJob(j: CorpusJob): ExpertEpisode {
  // The shipped tokenizer was learned from the expert's original perfect-memory episodes; the
  // corpus keeps them (honest: false) so public/tokenizer-v2.json stays reproducible.
  return 'harness' in j
    ? runExpertEpisode(j.task, j.harness, { honest: false })
    : runProceduralExpert(j.task, j.proc, { honest: false, surfaces: 'v1' });
}

function checkCount(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min) throw new Error(`tokenizer corpus v2: ${name} must be an integer ≥ ${min}, got ${v}`);
}

/** Take shuffled jobs until `maxBytes`; a failed expert episode (a harness bug) is an error. */
function collect(jobs: readonly CorpusJob[], maxBytes: number): string[] {
  const docs: string[] = [];
  let bytes = 0;
  for (const j of jobs) {
    if (bytes >= maxBytes) break;
    const ep = runJob(j);
    if (ep.error !== undefined) throw new Error(`tokenizer corpus v2: expert failed on ${ep.taskId} under ${ep.harness}: ${ep.error}`);
    for (const d of episodeDocuments(ep)) {
      docs.push(d);
      bytes += utf8Length(d);
    }
  }
  return docs;
}

/**
 * The episodes of the v2 corpus, in the (seeded, shuffled) order they are rendered: each of
 * `tasksPerSuite` train tasks per suite under every training harness, and `proceduralPerSuite`
 * other train tasks per suite each under its own procedural harness. Cheap (no episode is run).
 * @throws Error naming a bad option.
 */
export function corpusV2Plan(seed: number, opts: CorpusV2Options = {}): CorpusJob[] {
  const o = { ...CORPUS_V2_DEFAULTS, ...opts };
  checkCount('seed', seed, 0);
  checkCount('tasksPerSuite', o.tasksPerSuite, 0);
  checkCount('proceduralPerSuite', o.proceduralPerSuite, 0);
  checkCount('maxBytes', o.maxBytes, 1);
  const training = selectTraining(DEFAULT_SPACE).training;
  const jobs: CorpusJob[] = [];
  const procSeeds = Rng.derive(seed, 'tokenizer-v2', 'procedural-harness');
  for (const suite of SUITE_NAMES as SuiteName[]) {
    // One draw per suite, split in two disjoint parts: harness tasks first, procedural after.
    const tasks = taskSet(
      suite,
      'train',
      o.tasksPerSuite + o.proceduralPerSuite,
      Rng.derive(seed, 'tokenizer-v2', 'tasks', suite).int(2 ** 31),
    );
    for (const task of tasks.slice(0, o.tasksPerSuite)) for (const harness of training) jobs.push({ task, harness });
    for (const task of tasks.slice(o.tasksPerSuite)) jobs.push({ task, proc: procSeeds.int(2 ** 31) });
  }
  return Rng.derive(seed, 'tokenizer-v2', 'order').shuffle(jobs);
}

/**
 * The v2 training corpus (module doc): the episodes of `corpusV2Plan(seed, opts)`, rendered in
 * order until `maxBytes`.
 * @param seed generator seed (task draws, procedural harness seeds, job order)
 * @returns documents (context spans and action texts), ≈ min(all, maxBytes) UTF-8 bytes
 * @throws Error naming a bad option, or an expert episode that failed (a harness bug).
 */
export function generateTokenizerCorpusV2(seed: number, opts: CorpusV2Options = {}): string[] {
  return collect(corpusV2Plan(seed, opts), opts.maxBytes ?? CORPUS_V2_DEFAULTS.maxBytes);
}

/** Options of `heldOutRenderCorpus`. */
interface HeldOutCorpusOptions {
  /** Test tasks per suite (default 4). */
  tasksPerSuite?: number;
  /** Held-out in-space configurations drawn (seeded, without replacement) from designReport.heldOut (default 12). */
  heldOutHarnesses?: number;
  /** Cap in UTF-8 bytes, as for the training corpus (default 2 000 000). */
  maxBytes?: number;
}

/**
 * EVALUATION ONLY — never train a tokenizer on this. Renders of TEST-split tasks of both suites
 * under held-out in-space configurations and under both black-box harnesses, as documents in
 * the same form as the training corpus, for measuring compression out of sample.
 * @returns documents plus the harness ids used
 * @throws Error naming a bad option, or a failed expert episode.
 */
export function heldOutRenderCorpus(seed: number, opts: HeldOutCorpusOptions = {}): { docs: string[]; harnesses: string[] } {
  const o = { tasksPerSuite: 4, heldOutHarnesses: 12, maxBytes: 2_000_000, ...opts };
  checkCount('seed', seed, 0);
  checkCount('tasksPerSuite', o.tasksPerSuite, 0);
  checkCount('heldOutHarnesses', o.heldOutHarnesses, 0);
  checkCount('maxBytes', o.maxBytes, 1);
  const heldOut = selectTraining(DEFAULT_SPACE).heldOut.map((h) => h.id);
  const picked = Rng.derive(seed, 'tokenizer-v2-heldout', 'harnesses').shuffle(heldOut).slice(0, o.heldOutHarnesses);
  const harnesses = [...picked, CODING_CLI_ID, ASSISTANT_ID];
  const jobs: CorpusJob[] = [];
  for (const suite of SUITE_NAMES as SuiteName[]) {
    const tasks = taskSet(suite, 'test', o.tasksPerSuite, Rng.derive(seed, 'tokenizer-v2-heldout', 'tasks', suite).int(2 ** 31));
    for (const task of tasks) for (const harness of harnesses) jobs.push({ task, harness });
  }
  return { docs: collect(Rng.derive(seed, 'tokenizer-v2-heldout', 'order').shuffle(jobs), o.maxBytes), harnesses };
}
