/**
 * S — the system prompt (docs/ARCHITECTURE.md "Harness runtime"): turns the task, T's tool docs and W's instructions into
 * the opening messages. Kept compact for a 512-token policy context:
 * - S0 `concise` (~300 chars + docs): role, tool list, one example call, workflow line.
 * - S1 `rules-first` (about 2× S0): numbered rules first, then task, tools, example, role last;
 *   extra constraints (no guessing paths, exact data, recover from errors).
 * - S2 `workspace-bootstrap`: role, user profile and tool notes as separate bootstrap "files"
 *   (AGENTS.md, USER.md, TOOLS.md), as assistant harnesses load them.
 */
import type { Task } from '../../tasks/types';

/** What S needs besides the task: T's docs and one example call, W's instructions. */
interface PromptParts {
  toolDocs: string;
  /** One call in T's syntax, e.g. {"tool":"read","args":{"path":"notes.txt"}}. */
  example: string;
  /** W's instructions ('' for none). */
  workflow: string;
}

/** The opening messages' texts: `system` (the harness) and `user` (the request). */
interface Prompt {
  system: string;
  user: string;
}

export interface SystemPrompt {
  id: string;
  name: string;
  render(task: Task, parts: PromptParts): Prompt;
}

const S0: SystemPrompt = {
  id: 'S0',
  name: 'concise',
  render(task, p) {
    const lines = [
      'You operate a file workspace rooted at /. Send exactly one tool call per message.',
      p.toolDocs,
      `Example: ${p.example}`,
    ];
    if (p.workflow) lines.push(p.workflow);
    return { system: lines.join('\n'), user: task.instruction };
  },
};

const S1: SystemPrompt = {
  id: 'S1',
  name: 'rules-first',
  render(task, p) {
    const rules = [
      'Reply with one tool call and nothing else.',
      'All paths are inside /. Do not guess: list or search when unsure.',
      'Copy names, numbers and text exactly as they appear in files.',
      'If a call fails, read the error and try another way; do not repeat it.',
      'Only finish when every part of the task is done.',
    ];
    if (p.workflow) rules.push(p.workflow);
    const sys = [
      '## Rules',
      ...rules.map((r, i) => `${i + 1}. ${r}`),
      '## Task',
      task.instruction,
      '## Tools',
      p.toolDocs,
      '## Example',
      p.example,
      '## Role',
      'You are a careful assistant working in a sandboxed file workspace.',
    ];
    return { system: sys.join('\n'), user: 'Begin. Follow the rules above.' };
  },
};

const S2: SystemPrompt = {
  id: 'S2',
  name: 'workspace-bootstrap',
  render(task, p) {
    const files = [
      '--- AGENTS.md ---',
      'You are the workspace agent. One tool call per message.' + (p.workflow ? ` ${p.workflow}` : ''),
      '--- USER.md ---',
      'The user wants exact file names and short answers.',
      '--- TOOLS.md ---',
      p.toolDocs,
      `e.g. ${p.example}`,
    ];
    return { system: files.join('\n'), user: `Request: ${task.instruction}` };
  },
};

export const SYSTEM_PROMPTS: readonly SystemPrompt[] = [S0, S1, S2];
