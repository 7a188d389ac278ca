/**
 * The contract of task suites (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"): seeded generators, verifiers, a canonical solver.
 */
import type { SandboxState, ToolCall, ToolResult, Transcript } from '../sandbox/types';

export type SuiteName = 'workspace' | 'errands';
export type Tier = 1 | 2 | 3;

export interface Task {
  /** Stable id, e.g. 'workspace/csv-extract/t2/1000017'. */
  id: string;
  suite: SuiteName;
  family: string;
  tier: Tier;
  seed: number;
  /** What the user asks, in plain language (the harness's S renders it). */
  instruction: string;
  /** The workspace at the start of the episode. */
  initial: SandboxState;
  /** Family-level flags used by behaviour analysis. */
  needsStateTracking: boolean;
  hasRecoverableError: boolean;
}

/**
 * What a sub-check measures, which sets its role in the partial score (src/tasks/common.ts
 * `verification`):
 *  - 'progress': part of what the task asks (an output written, a file moved, the answer).
 *    It fails on the initial state: an episode that does nothing makes no progress.
 *  - 'preservation': nothing else was harmed (other files intact, no stray files, existing
 *    events or to-do items kept). It holds on the initial state, so it never pays on its own;
 *    it scales the progress down when it fails.
 *  - 'completion': the episode ended with `finish`.
 */
export type CheckKind = 'progress' | 'preservation' | 'completion';

export interface SubCheck {
  name: string;
  pass: boolean;
  kind: CheckKind;
  /**
   * For a progress check over several items (files moved, .tmp files deleted): the fraction
   * done, in [0, 1]; counts in the score in place of 0 when the check fails. Absent: 0 or 1.
   */
  credit?: number;
  detail?: string;
}

/**
 * pass = every sub-check passes. score ∈ [0, 1] is the partial credit, gated so that inaction
 * earns nothing: score = progress × (preserved ? 1 : PRESERVATION_PENALTY) × (finished ? 1 :
 * UNFINISHED_FACTOR), with progress the fraction of progress checks that pass. score = 1 iff
 * pass; an episode that changes nothing and answers nothing scores 0.
 */
export interface Verification {
  checks: SubCheck[];
  score: number;
  pass: boolean;
  /** Mean over the 'progress' checks of 1 (pass) or the check's credit (fail; 0 when absent). */
  progress: number;
  /** Every 'preservation' check passes. */
  preserved: boolean;
  /** Every 'completion' check passes (the episode called finish). */
  finished: boolean;
}

/**
 * A scripted solver for one task, in canonical calls. `next(last)` receives the result of the
 * previous call (null at the start) and returns the next call; the last call is `finish`.
 * It adapts to observations (e.g. searches when a referenced file is not where it was said).
 */
export interface CanonicalSolver {
  next(last: ToolResult | null): ToolCall;
}

export interface FamilyInfo {
  name: string;
  description: string;
  needsStateTracking: boolean;
  hasRecoverableError: boolean;
}

export interface TaskSuite {
  name: SuiteName;
  families: readonly FamilyInfo[];
  /** Deterministic in (family, tier, seed). @throws Error naming an unknown family or tier. */
  generate(family: string, tier: Tier, seed: number): Task;
  /** Sees only the final sandbox state and the transcript. */
  verify(task: Task, final: SandboxState, transcript: Transcript): Verification;
  solver(task: Task): CanonicalSolver;
}
