/**
 * The episode machinery shared by composed and black-box harnesses: budgets (turns, context
 * tokens, action tokens), the per-turn record of (context, action), the transcript for the
 * verifier, finish handling, and exception safety (nothing a policy writes throws out of `step`).
 * Subclasses provide the opening messages, `view`, and `act` (what one action does).
 */
import type { SandboxState, ToolCall, ToolResult, Transcript, TranscriptStep } from '../sandbox/types';
import type { Task } from '../tasks/types';
import { approxTokens, renderPrompt } from './render';
import { computeTags } from './tags';
import type {
  ActionKind,
  BehaviourTags,
  EpisodeBudget,
  Harness,
  HarnessOptions,
  Message,
  StepResult,
  TruncationReason,
  TurnRecord,
  WorkflowStatus,
} from './types';
import { defaultSandboxFactory, type SandboxFactory, type SandboxPort } from './sandbox_port';

/** Defaults sized for the ~512-token policy; the expert driver lifts the context cap. */
const DEFAULT_BUDGET: EpisodeBudget = { maxTurns: 40, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: 256 };

/** What one action did (returned by a subclass's `act`). */
export interface ActOutcome {
  kind: Exclude<ActionKind, 'cutoff' | 'after_done'>;
  observation: string;
  calls: ToolCall[];
  results: ToolResult[];
  toolError: boolean;
  /** The policy finished with this answer (the episode terminates). */
  finished?: { answer: string };
}

export interface BaseHarnessOptions extends HarnessOptions {
  sandboxFactory?: SandboxFactory;
}

function checkBudget(b: EpisodeBudget): EpisodeBudget {
  for (const k of ['maxTurns', 'maxContextTokens', 'maxActionTokens'] as const) {
    if (!(b[k] >= 1)) throw new Error(`budget.${k} must be ≥ 1, got ${b[k]}`);
  }
  if (!Number.isInteger(b.maxTurns)) throw new Error(`budget.maxTurns must be an integer, got ${b.maxTurns}`);
  return b;
}

export abstract class BaseHarness implements Harness {
  abstract readonly id: string;
  readonly budget: EpisodeBudget;
  protected readonly tokenLength: (text: string) => number;
  private readonly sandboxFactory: SandboxFactory;

  protected task: Task | null = null;
  protected sandbox: SandboxPort | null = null;
  private records: TurnRecord[] = [];
  private steps: TranscriptStep[] = [];
  private answer: string | null = null;
  private ended = false;
  private terminatedFlag = false;
  private truncation: TruncationReason | null = null;
  private pendingContext = '';

  constructor(opts: BaseHarnessOptions = {}) {
    this.budget = checkBudget({ ...DEFAULT_BUDGET, ...(opts.budget ?? {}) });
    this.tokenLength = opts.tokenLength ?? approxTokens;
    this.sandboxFactory = opts.sandboxFactory ?? defaultSandboxFactory();
  }

  /** Reset subclass state for `task` (the sandbox already exists). */
  protected abstract startEpisode(task: Task): void;
  /** Apply one (uncut) action. Must not throw for any string; may call `exec`. */
  protected abstract act(action: string): ActOutcome;
  abstract view(): Message[];
  abstract workflowStatus(): WorkflowStatus;

  reset(task: Task): Message[] {
    this.task = task;
    this.sandbox = this.sandboxFactory(structuredClone(task.initial));
    this.records = [];
    this.steps = [];
    this.answer = null;
    this.ended = false;
    this.terminatedFlag = false;
    this.truncation = null;
    this.startEpisode(task);
    this.refreshContext();
    return this.view();
  }

  contextText(): string {
    return renderPrompt(this.view());
  }

  get done(): boolean {
    return this.ended;
  }

  step(action: string, opts: { cutOff?: boolean } = {}): StepResult {
    if (!this.task) throw new Error('harness.step: call reset(task) first');
    if (typeof action !== 'string') action = String(action);
    if (this.ended) {
      return {
        observation: '',
        done: true,
        terminated: this.terminatedFlag,
        truncated: this.truncation !== null,
        kind: 'after_done',
        calls: [],
        results: [],
      };
    }
    const context = this.pendingContext;
    const turn = this.records.length + 1;
    if (opts.cutOff || this.tokenLength(action) > this.budget.maxActionTokens) {
      // A cut-off action is a budget event, not a format error: nothing runs, no parse error.
      this.records.push({ turn, context, action, observation: '', kind: 'cutoff', calls: [], results: [], toolError: false });
      this.endTruncated('action');
      return this.stepResult('', 'cutoff', [], []);
    }
    let out: ActOutcome;
    try {
      out = this.act(action);
    } catch (e) {
      // Defensive: a bug in a realization must not kill a rollout worker; report it as a tool error.
      const msg = `internal harness error: ${(e as Error).message}`.slice(0, 200);
      out = { kind: 'tool', observation: msg, calls: [], results: [], toolError: true };
    }
    this.records.push({
      turn,
      context,
      action,
      observation: out.observation,
      kind: out.kind,
      calls: out.calls,
      results: out.results,
      toolError: out.toolError,
    });
    if (out.finished) {
      this.answer = out.finished.answer;
      this.ended = true;
      this.terminatedFlag = true;
    } else if (turn >= this.budget.maxTurns) {
      this.endTruncated('turns');
    } else {
      this.refreshContext();
    }
    return this.stepResult(out.observation, out.kind, out.calls, out.results);
  }

  private stepResult(observation: string, kind: ActionKind, calls: ToolCall[], results: ToolResult[]): StepResult {
    const r: StepResult = {
      observation,
      done: this.ended,
      terminated: this.terminatedFlag,
      truncated: this.truncation !== null,
      kind,
      calls,
      results,
    };
    if (this.truncation) r.truncationReason = this.truncation;
    return r;
  }

  private endTruncated(reason: TruncationReason): void {
    this.ended = true;
    this.truncation = reason;
  }

  /** Render the next context; past the context budget the episode is truncated instead. */
  private refreshContext(): void {
    const text = this.contextText();
    if (this.tokenLength(text) > this.budget.maxContextTokens) {
      this.endTruncated('context');
      return;
    }
    this.pendingContext = text;
  }

  /** Run a canonical call in the sandbox; never throws (a sandbox exception becomes an error result). */
  protected exec(call: ToolCall): ToolResult {
    let result: ToolResult;
    try {
      result = this.sandbox!.exec(call);
    } catch (e) {
      result = { ok: false, output: '', error: { code: 'bad_args', message: String((e as Error).message ?? e).slice(0, 200) } };
    }
    this.steps.push({ call, result });
    return result;
  }

  /** Record a step that did not run: a parse failure (call null) or a rejected call. */
  protected recordNotRun(call: ToolCall | null): void {
    this.steps.push({ call, result: null });
  }

  /** Record the finish call (handled by the harness, not the sandbox). */
  protected finishCall(answer: string | undefined): ToolResult {
    const call: ToolCall = { tool: 'finish', args: answer === undefined ? {} : { answer } };
    const result: ToolResult = { ok: true, output: 'finished' };
    this.steps.push({ call, result });
    return result;
  }

  transcript(): Transcript {
    return { steps: this.steps.map((s) => ({ ...s })), answer: this.answer };
  }

  sandboxState(): SandboxState {
    if (!this.sandbox) throw new Error('harness.sandboxState: call reset(task) first');
    return this.sandbox.state();
  }

  turns(): readonly TurnRecord[] {
    return this.records;
  }

  tags(): BehaviourTags {
    return computeTags(this.records, { terminated: this.terminatedFlag, truncation: this.truncation });
  }
}
