/**
 * A harness composed from one realization per component (docs/ARCHITECTURE.md "Harness runtime"): h = (S, T, O, C, W).
 *
 * One episode step, in order:
 *  1. W.message — a workflow message (W1 plan, W2 todo) is handled without a tool;
 *  2. T.parse — a parse failure becomes an observation showing T's expected format; nothing runs;
 *  3. W.gate — a rejected call becomes an observation and a workflow violation; nothing runs;
 *  4. the canonical call runs in the sandbox (`finish` is handled here: it ends the episode);
 *  5. O renders the result; C builds the next view from the history.
 */
import type { ToolCall } from '../sandbox/types';
import type { Task } from '../tasks/types';
import { BaseHarness, type ActOutcome, type BaseHarnessOptions } from './base';
import type { ContextPolicy, History } from './realizations/context';
import type { ObservationFormat } from './realizations/observation';
import type { SystemPrompt } from './realizations/system';
import { isParseError, type ToolInterface } from './realizations/tool_interface';
import type { Workflow, WorkflowState } from './realizations/workflow';
import { briefCall, TOOL_SPECS } from './tools';
import type { Message, WorkflowStatus } from './types';

export interface Components {
  S: SystemPrompt;
  T: ToolInterface;
  O: ObservationFormat;
  C: ContextPolicy;
  W: Workflow;
}

/** The example call S shows (a read of a plausible file). */
const EXAMPLE_CALL: ToolCall = { tool: 'read', args: { path: 'notes.txt' } };

export class ComposedHarness extends BaseHarness {
  readonly id: string;
  readonly components: Components;
  private history: History = { prefix: [], turns: [] };
  private wf: WorkflowState;

  constructor(id: string, components: Components, opts: BaseHarnessOptions = {}) {
    super(opts);
    this.id = id;
    this.components = components;
    this.wf = components.W.init();
  }

  /** The opening messages for `task` (system prompt with T's docs and W's rules, then the request). */
  openingMessages(task: Task): Message[] {
    const { S, T, W } = this.components;
    // W's instructions name the canonical finish; say it the way T spells it (T1: 'done').
    const workflow = W.instructions.replace(/\bfinish\b/g, T.toolName('finish'));
    const p = S.render(task, { toolDocs: T.describe(TOOL_SPECS), example: T.format(EXAMPLE_CALL), workflow });
    return [
      { role: 'system', text: p.system, policy: false },
      { role: 'user', text: p.user, policy: false },
    ];
  }

  protected startEpisode(task: Task): void {
    this.wf = this.components.W.init();
    this.history = { prefix: this.openingMessages(task), turns: [] };
  }

  view(): Message[] {
    return this.components.C.view(this.history, this.tokenLength);
  }

  workflowStatus(): WorkflowStatus {
    return this.components.W.status(this.wf);
  }

  protected act(action: string): ActOutcome {
    const { T, O, W } = this.components;
    let out: ActOutcome;
    let brief: string;
    const wm = W.message(this.wf, action);
    if (wm) {
      if (wm.accepted) {
        out = { kind: 'message', observation: O.notice('note', wm.note), calls: [], results: [], toolError: false };
        brief = wm.note;
      } else {
        out = { kind: 'rejected', observation: O.notice('rejected', wm.message), calls: [], results: [], toolError: false };
        brief = `rejected: ${wm.message}`;
      }
    } else {
      const parsed = T.parse(action);
      if (isParseError(parsed)) {
        this.recordNotRun(null);
        out = { kind: 'parse_error', observation: O.notice('parse_error', parsed.error), calls: [], results: [], toolError: false };
        brief = 'parse error';
      } else {
        const gate = W.gate(this.wf, parsed);
        if (!gate.allow) {
          this.recordNotRun(parsed);
          out = { kind: 'rejected', observation: O.notice('rejected', gate.message), calls: [], results: [], toolError: false };
          brief = `${briefCall(parsed)}: rejected`;
        } else if (parsed.tool === 'finish') {
          const result = this.finishCall(parsed.args.answer);
          out = {
            kind: 'tool',
            observation: O.render(result),
            calls: [parsed],
            results: [result],
            toolError: false,
            finished: { answer: parsed.args.answer ?? '' },
          };
          brief = briefCall(parsed);
        } else {
          const result = this.exec(parsed);
          W.after(this.wf, parsed, result);
          out = { kind: 'tool', observation: O.render(result), calls: [parsed], results: [result], toolError: !result.ok };
          const lines = result.output === '' ? 0 : result.output.split('\n').length;
          brief = `${briefCall(parsed)}: ${result.ok ? `ok${parsed.tool === 'read' || parsed.tool === 'list' || parsed.tool === 'search' ? `, ${lines} lines` : ''}` : `error ${result.error?.code ?? ''}`}`;
        }
      }
    }
    this.history.turns.push({
      action: { role: 'assistant', text: action, policy: true },
      observation: { role: 'tool', text: out.observation, policy: false },
      brief,
    });
    return out;
  }
}
