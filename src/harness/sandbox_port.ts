/**
 * The slice of the sandbox a harness uses, so tests and rollout workers can inject their own
 * (e.g. with other limits). The default is the canonical in-memory `Sandbox` (src/sandbox).
 */
import { Sandbox } from '../sandbox/sandbox';
import type { SandboxLimits, SandboxState, ToolCall, ToolResult } from '../sandbox/types';

export interface SandboxPort {
  exec(call: ToolCall): ToolResult;
  state(): SandboxState;
}

/** Builds a fresh sandbox from a task's initial state (the caller passes a private copy). */
export type SandboxFactory = (initial: SandboxState) => SandboxPort;

/** `Sandbox.fromState` with optional limits. */
export function defaultSandboxFactory(limits?: Partial<SandboxLimits>): SandboxFactory {
  return (initial) => Sandbox.fromState(initial, limits);
}
