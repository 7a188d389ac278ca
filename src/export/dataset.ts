/**
 * Datasets for external RL engines (`hlab export`, docs/SCALE-OUT.md): one row per
 * (task, harness) of the task → harness schedule — each train task's K harnesses, anchor
 * first (locality: anchor + K−1 nearest; or the strategies of an experiment spec, via
 * src/experiment/plan.ts) — plus held-out in-space and black-box evaluation rows built the
 * same way. Each row has the task, the harness's component levels, the opening context (chat
 * messages and rendered text) and the tool schema as the harness renders it, and the keys
 * an engine passes back to `hlab serve` to run the episode.
 *
 * Pure and seeded: every draw comes from the options' seeds (taskSet, assignHarnesses,
 * Rng.derive). No I/O (writers: verl.ts, slime.ts).
 */
import { turnCap } from '../harness/turn_budget';
import { DEFAULT_SPACE, assignHarnesses, parseHarnessId, selectTraining, type DesignReport, type TaskAssignment } from '../design';
import { componentsOf, isBlackboxId, BLACKBOX_IDS } from '../harness/registry';
import { TOOL_SPECS } from '../harness/tools';
import { EpisodeHost, type ChatMessage } from '../episode/host';
import { taskFromId, taskSet } from '../tasks';
import type { SuiteName, Task } from '../tasks/types';
import { Rng } from '../util/rng';
import { inSpaceEvalSet, methodDesign, taskAssignments, testTasks, trainPool } from '../experiment/plan';
import type { ExperimentSpec, MethodSpec } from '../experiment/spec';

/** Which set a row belongs to. */
export type RowSplit = 'train' | 'heldout' | 'blackbox';

/** Component levels of a composed harness (S..W, 0-based); all null for a black-box harness. */
interface ComponentLevels {
  S: number | null;
  T: number | null;
  O: number | null;
  C: number | null;
  W: number | null;
}

/** An OpenAI-style function schema of one canonical tool (what `tools=` of a chat template takes). */
interface FunctionTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: { type: 'object'; properties: Record<string, { type: 'string' }>; required: string[] };
  };
}

/** One exported row (engine-neutral; verl.ts and slime.ts map it to their columns). */
export interface ExportRow {
  /** 0-based within its split. */
  index: number;
  split: RowSplit;
  suite: SuiteName;
  /** Full task id 'suite/family/tN/seed' (what POST /v1/episodes takes as `task`). */
  task: string;
  family: string;
  tier: number;
  harness: string;
  blackbox: boolean;
  levels: ComponentLevels;
  /** 'anchor' | 'neighbor' for train rows (position in the task's K), 'eval' otherwise. */
  role: 'anchor' | 'neighbor' | 'eval';
  /** Train: Hamming distance to the task's anchor; held-out: to the nearest training harness; black-box: null. */
  distance: number | null;
  /** Position of the harness in the task's round-robin list (train), else 0. */
  slot: number;
  /**
   * The episode's turn cap: the export's tool-call turns (rollout.maxTurns) plus this harness's
   * workflow overhead for this task (src/harness/turn_budget.ts `turnCap`), the cap `hlab run`
   * gives the same cell.
   */
  maxTurns: number;
  instruction: string;
  /** The opening context as chat messages. */
  messages: ChatMessage[];
  /** The same, rendered with role markers and the open assistant marker. */
  prompt: string;
  /** The tool documentation exactly as this harness shows it to the policy (its T, or the black-box prompt). */
  toolDocs: string;
  /** The canonical tools as function schemas (identical for every harness: T only re-syntaxes them). */
  tools: FunctionTool[];
}

/** What `buildExport` returns: rows per split and the JSON written beside them. */
export interface ExportDataset {
  train: ExportRow[];
  heldout: ExportRow[];
  blackbox: ExportRow[];
  /** The training set and held-out set (DesignReport) plus the training rows as level vectors. */
  design: DesignReport & { table: { id: string; levels: number[] }[] };
  /** The task → harness schedule: each task's K harnesses, anchor first, used round-robin. */
  schedule: { strategy: string; K: number; seed: number; roundRobin: string; assignments: TaskAssignment[] };
  /** How the sets were chosen (one line each), for the manifest. */
  description: Record<RowSplit, string>;
}

/** Options of the default (spec-free) export. */
export interface ExportOptions {
  /** Training-set selection: strength-2 OA or random-k (default 'oa'). */
  design?: 'oa' | 'random';
  /** k of a random design (default 18). */
  k?: number;
  /** Seed of a random design (default 0). */
  designSeed?: number;
  /** Harnesses per task, 1..|H_tr| (default 4). */
  K?: number;
  /** Assignment: anchor + K−1 nearest, or K−1 uniform (default 'locality'). */
  strategy?: 'locality' | 'random';
  /** Seed of the task draws and the assignment (default 0). */
  seed?: number;
  suites?: SuiteName[];
  /** Train tasks per suite (default 16). */
  tasks?: number;
  /** Test tasks per suite for the evaluation sets (default 8). */
  evalTasks?: number;
  /** Held-out configurations per Hamming distance, seeded (default 2). */
  heldoutPerDistance?: number;
  /** Only tasks of tier ≤ maxTier (default 3). */
  maxTier?: number;
  /** Tool-call turns per episode (default 16); each row records its turn cap (`turnCap`). */
  maxTurns?: number;
}

/** The canonical tools as OpenAI-style function schemas. */
function functionTools(): FunctionTool[] {
  return TOOL_SPECS.map((s) => ({
    type: 'function',
    function: {
      name: s.name,
      description: s.summary,
      parameters: {
        type: 'object',
        properties: Object.fromEntries([...s.required, ...s.optional].map((a) => [a, { type: 'string' as const }])),
        required: [...s.required],
      },
    },
  }));
}

/** Component levels of a harness id (nulls for black-box ids). @throws Error naming a bad id. */
function harnessLevels(id: string): ComponentLevels {
  if (isBlackboxId(id)) return { S: null, T: null, O: null, C: null, W: null };
  const [S, T, O, C, W] = parseHarnessId(id, DEFAULT_SPACE);
  return { S, T, O, C, W };
}

/** The tool docs harness `id` shows: T.describe for a composed id, the system prompt of a black-box one. */
function toolDocsOf(id: string, opening: readonly ChatMessage[]): string {
  if (isBlackboxId(id)) return opening.find((m) => m.role === 'system')?.content ?? '';
  return componentsOf(id).T.describe(TOOL_SPECS);
}

const TOOLS = functionTools();
/** Opens each row's episode as a rollout would; a row keeps only the opening. */
const OPENINGS = new EpisodeHost({ maxTurns: 'tool-calls' });

function row(
  split: RowSplit,
  index: number,
  task: Task,
  harness: string,
  role: ExportRow['role'],
  distance: number | null,
  slot: number,
  maxTurns: number,
): ExportRow {
  const { context, messages } = OPENINGS.reset({ key: 'export', taskId: task.id, harnessId: harness, maxTurns });
  OPENINGS.close('export');
  return {
    index,
    split,
    suite: task.suite,
    task: task.id,
    family: task.family,
    tier: task.tier,
    harness,
    blackbox: isBlackboxId(harness),
    levels: harnessLevels(harness),
    role,
    distance,
    slot,
    maxTurns: turnCap(maxTurns, harness, task),
    instruction: task.instruction,
    messages,
    prompt: context,
    toolDocs: toolDocsOf(harness, messages),
    tools: TOOLS,
  };
}

/** First n task ids of a balanced draw with tier ≤ maxTier (as plan.ts draws them). */
function drawTasks(suite: SuiteName, split: 'train' | 'test', n: number, seed: number, maxTier: number): Task[] {
  if (maxTier >= 3) return taskSet(suite, split, n, seed);
  return taskSet(suite, split, 3 * n, seed)
    .filter((t) => t.tier <= maxTier)
    .slice(0, n);
}

/** Held-out ids stratified by distance: `perDistance` per distance, seeded (as plan.ts inSpaceEvalSet). */
function stratifiedHeldOut(d: DesignReport, perDistance: number, seed: number): { id: string; distance: number }[] {
  const byDist = new Map<number, string[]>();
  for (const h of d.heldOut) byDist.set(h.distance, [...(byDist.get(h.distance) ?? []), h.id]);
  return [...byDist.keys()]
    .sort((a, b) => a - b)
    .flatMap((dist) =>
      Rng.derive(seed, 'in-space', dist)
        .shuffle(byDist.get(dist)!)
        .slice(0, perDistance)
        .map((id) => ({ id, distance: dist })),
    );
}

function withTable(d: DesignReport): ExportDataset['design'] {
  return { ...d, table: d.training.map((id) => ({ id, levels: parseHarnessId(id, DEFAULT_SPACE) })) };
}

function assemble(
  design: DesignReport,
  assignments: TaskAssignment[],
  schedule: Omit<ExportDataset['schedule'], 'assignments' | 'roundRobin'>,
  testIds: string[],
  heldOut: { id: string; distance: number }[],
  blackboxIds: readonly string[],
  maxTurns: number,
  description: Record<RowSplit, string>,
): ExportDataset {
  const train: ExportRow[] = [];
  for (const a of assignments) {
    const task = taskFromId(String(a.task));
    a.harnesses.forEach((h, i) =>
      train.push(row('train', train.length, task, h, i === 0 ? 'anchor' : 'neighbor', a.distances[i], i, maxTurns)),
    );
  }
  const tests = testIds.map(taskFromId);
  const heldout: ExportRow[] = [];
  const blackbox: ExportRow[] = [];
  for (const t of tests) {
    for (const h of heldOut) heldout.push(row('heldout', heldout.length, t, h.id, 'eval', h.distance, 0, maxTurns));
    for (const b of blackboxIds) blackbox.push(row('blackbox', blackbox.length, t, b, 'eval', null, 0, maxTurns));
  }
  return {
    train,
    heldout,
    blackbox,
    design: withTable(design),
    schedule: { ...schedule, roundRobin: 'the k-th draw of a task (k = 0, 1, …) uses harnesses[k mod K], the anchor first', assignments },
    description,
  };
}

/**
 * The default export: design → K harnesses per train task → rows; test tasks × stratified
 * held-out configurations and × black-box harnesses as evaluation rows.
 * @throws Error naming K when it exceeds the training-set size, or a bad option.
 */
export function buildExport(opts: ExportOptions = {}): ExportDataset {
  const seed = opts.seed ?? 0;
  const K = opts.K ?? 4;
  const strategy = opts.strategy ?? 'locality';
  const suites = opts.suites ?? ['workspace', 'errands'];
  const maxTier = opts.maxTier ?? 3;
  const maxTurns = opts.maxTurns ?? 16;
  const design =
    opts.design === 'random'
      ? selectTraining(DEFAULT_SPACE, { method: 'random', k: opts.k ?? 18, seed: opts.designSeed ?? 0 })
      : selectTraining(DEFAULT_SPACE, { method: 'oa' });
  const train = suites
    .flatMap((s) => drawTasks(s, 'train', opts.tasks ?? 16, Rng.derive(seed, 'export-train', s).int(2 ** 31), maxTier))
    .map((t) => t.id);
  const assignments = assignHarnesses({ training: design.training, K, tasks: train, strategy, seed });
  const tests = suites
    .flatMap((s) => drawTasks(s, 'test', opts.evalTasks ?? 8, Rng.derive(seed, 'export-test', s).int(2 ** 31), maxTier))
    .map((t) => t.id);
  const per = opts.heldoutPerDistance ?? 2;
  const heldOut = stratifiedHeldOut(design, per, seed);
  return assemble(design, assignments, { strategy, K, seed }, tests, heldOut, BLACKBOX_IDS, maxTurns, {
    train: `${train.length} train tasks (${suites.join(', ')}, tier ≤ ${maxTier}, seed ${seed}) × K = ${K} harnesses of the ${design.method} design (${strategy} assignment)`,
    heldout: `${tests.length} test tasks × ${heldOut.length} held-out configurations (${per} per Hamming distance, seed ${seed})`,
    blackbox: `${tests.length} test tasks × ${BLACKBOX_IDS.length} black-box harnesses`,
  });
}

/**
 * The export of one method of an experiment spec, exactly as the runner plans it
 * (src/experiment/plan.ts): its train pool and K harnesses per task, the spec's test tasks,
 * its held-out in-space set and its black-box evaluation harnesses.
 * @throws Error naming K when it exceeds the training-set size.
 */
export function buildSpecExport(spec: ExperimentSpec, method: MethodSpec, seed: number): ExportDataset {
  const pool = trainPool(spec, seed);
  const assignments = taskAssignments(spec, method, pool, seed);
  const design = methodDesign(spec, method, seed);
  const dist = new Map(design.heldOut.map((h) => [h.id, h.distance]));
  const inSpace = inSpaceEvalSet(spec);
  const heldOut = inSpace.ids.map((id) => ({ id, distance: dist.get(id) ?? 0 }));
  const tests = testTasks(spec, seed);
  const strategy =
    method.harnesses === 'random-assignment'
      ? 'random'
      : method.harnesses === 'scaling' || method.harnesses === 'random-k'
        ? 'locality'
        : method.harnesses;
  return assemble(
    design,
    assignments,
    { strategy, K: assignments[0]?.harnesses.length ?? 0, seed: spec.design.seed },
    tests,
    heldOut,
    spec.evaluation.blackbox,
    spec.rollout.maxTurns,
    {
      train: `spec '${spec.name}', method '${method.name}' (${method.harnesses}), seed ${seed}: ${pool.length} train tasks`,
      heldout: `${tests.length} test tasks × ${inSpace.description}`,
      blackbox: `${tests.length} test tasks × ${spec.evaluation.blackbox.length} black-box harnesses (${spec.evaluation.blackbox.join(', ') || 'none'})`,
    },
  );
}
