/**
 * The contract of task suites (DESIGN.md §6): seeded generators, verifiers, a canonical solver.
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

export interface SubCheck {
  name: string;
  pass: boolean;
  detail?: string;
}

/** score = mean of sub-checks, pass = all sub-checks pass. */
export interface Verification {
  checks: SubCheck[];
  score: number;
  pass: boolean;
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
