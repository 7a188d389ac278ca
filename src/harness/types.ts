/**
 * The harness contract (docs/ARCHITECTURE.md "Harness runtime", "Rows and trajectories"): what a harness shows the policy and what it does
 * with the policy's action text. Both composed harnesses (one realization per component S, T,
 * O, C, W) and black-box harnesses (whole modules) implement `Harness`.
 *
 * Pure data here; no DOM, no sandbox imports beyond the contract types.
 */
import type { SandboxState, ToolCall, ToolResult, Transcript } from '../sandbox/types';
import type { Task } from '../tasks/types';

/** Who a message is from. `assistant` messages are the policy's action texts. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/**
 * One message of a context. `policy` is true exactly when `text` is a verbatim action the
 * policy produced (its tokens carry loss mask 1 when the row is built from one turn; every
 * other text is context, mask 0). The renderer escapes marker text in it like in any message. A harness that rewrites an old action (e.g. compaction)
 * emits it with `policy: false`.
 */
export interface Message {
  role: Role;
  text: string;
  policy: boolean;
}

/** Budgets of one episode. Tokens are counted by `tokenLength` (default ⌈chars / 4⌉). */
export interface EpisodeBudget {
  /** Most policy turns (actions). At the cap the episode is truncated. */
  maxTurns: number;
  /**
   * Most tokens of the rendered context the policy sees (`contextText`). When the next view
   * would exceed it the episode is truncated (reason 'context') instead of showing it.
   */
  maxContextTokens: number;
  /** Most tokens of one action; a longer (cut-off) action truncates the episode, reason 'action'. */
  maxActionTokens: number;
}

/** Options every harness accepts. */
export interface HarnessOptions {
  budget?: Partial<EpisodeBudget>;
  /** Token counter for budgets and compaction; default ⌈text.length / 4⌉. */
  tokenLength?: (text: string) => number;
}

/** Why an episode ended early without finishing. */
export type TruncationReason = 'turns' | 'context' | 'action';

/** What `step` reports. `terminated` (finished) and `truncated` (cut by a budget) are exclusive. */
export interface StepResult {
  /** The observation text shown to the policy for this action ('' when the episode ended by truncation before a tool ran). */
  observation: string;
  /** The episode is over (terminated or truncated). */
  done: boolean;
  /** Ended by the policy's finish (a real end: no bootstrap). */
  terminated: boolean;
  /** Ended by a budget (turns, context, cut-off action): bootstrap from the value estimate. */
  truncated: boolean;
  truncationReason?: TruncationReason;
  /** How the action was classified. */
  kind: ActionKind;
  /** The canonical call(s) the action ran in the sandbox (black-box tools may run several). */
  calls: ToolCall[];
  /** Their canonical results, aligned with `calls`. */
  results: ToolResult[];
}

/**
 * - `tool`: parsed and run (the result may still be a tool error);
 * - `message`: a workflow message accepted without a tool (W1 plan, W2 todo, coding-cli TodoWrite is a tool);
 * - `parse_error`: the text is not a call in this harness's syntax (nothing ran);
 * - `rejected`: parsed, but the workflow refused it (nothing ran);
 * - `cutoff`: the action hit the action-token budget (truncation, not a parse error);
 * - `after_done`: a step after the episode ended (ignored).
 */
export type ActionKind = 'tool' | 'message' | 'parse_error' | 'rejected' | 'cutoff' | 'after_done';

/**
 * One turn as the trainer needs it: the exact context text the policy saw (rendered with role
 * markers, ending with the assistant marker) and its exact action text. With history rewriting
 * (C1, C2, compaction) consecutive contexts need not share a prefix, so each turn is a row.
 */
export interface TurnRecord {
  turn: number;
  context: string;
  action: string;
  observation: string;
  kind: ActionKind;
  calls: ToolCall[];
  results: ToolResult[];
  /** The action's tool call failed (a canonical error result, or a black-box tool's own error such as an edit whose old text is absent). */
  toolError: boolean;
}

/** Behaviour tags of one episode (docs/ARCHITECTURE.md "Sandbox, tasks and behaviour tags"); definitions in src/harness/tags.ts. */
export interface BehaviourTags {
  turns: number;
  toolCalls: number;
  parseErrors: number;
  workflowViolations: number;
  toolErrors: number;
  /** null when no parse error, violation or tool error happened; otherwise see tags.ts. */
  recovered: boolean | null;
  stateTrackingErrors: number;
  /** The individual state-tracking events, e.g. "read /a.txt after moving it away". */
  stateTrackingEvents: string[];
  terminated: boolean;
  truncated: boolean;
  truncationReason: TruncationReason | null;
}

/**
 * What the scripted expert needs to satisfy a harness's rules without guessing them; mirrors
 * the harness's own state so the expert and the gate never disagree.
 */
export interface WorkflowStatus {
  /** A plan message ("Plan: …") is still required before any tool call (W1). */
  needsPlan: boolean;
  /** A todo list ("Todo: …") is still required before any tool call (W2). */
  needsTodo: boolean;
  /** Open todo items that must be checked before finish (W2). */
  openTodos: string[];
  /** Paths written since they were last read; finish is refused until re-read (W2). */
  unverified: string[];
}

/** The common interface of composed and black-box harnesses. */
export interface Harness {
  /** e.g. 'S0-T1-O2-C0-W1' or 'bb-coding-cli'. */
  readonly id: string;
  /** The effective budgets. */
  readonly budget: EpisodeBudget;
  /** Start an episode on `task` (fresh sandbox from task.initial); returns the first view. */
  reset(task: Task): Message[];
  /** The messages the policy sees next (after C / pruning / compaction). */
  view(): Message[];
  /** `render(view())` followed by the assistant marker: the exact text the policy continues. */
  contextText(): string;
  /**
   * Apply one action text. Never throws on any string: malformed input becomes a parse-error
   * observation; a cut-off action (`opts.cutOff` or longer than maxActionTokens) truncates.
   * @throws Error only when called before `reset`.
   */
  step(action: string, opts?: { cutOff?: boolean }): StepResult;
  readonly done: boolean;
  /** Canonical calls and results so far, for the verifier. */
  transcript(): Transcript;
  sandboxState(): SandboxState;
  /** Every turn so far (context, action, observation …). */
  turns(): readonly TurnRecord[];
  /** Behaviour tags so far. */
  tags(): BehaviourTags;
  /** Workflow requirements still open (for the expert driver). */
  workflowStatus(): WorkflowStatus;
}
