/**
 * A fake policy engine and checkpoint store for running the experiment runner in Node (through
 * its RunSeams): the policy samples seeded random short actions, the RL trainer reports scripted
 * metrics (optimizer steps, skipped steps, dropped groups) and records what each update saw, and
 * the store keeps only what was saved.
 */
import type { Engine, EnginePolicy, EngineRlTrainer, RlStack } from '../../../src/engine/engine_api';
import type { RlTrainerOptions, RlUpdateMetrics } from '../../../src/rl/update';
import type { RunStore } from '../../../src/experiment/run_checkpoint';
import type { CheckpointInput } from '../../../src/storage/serialize';
import { randomTokenPolicy } from './random_policy';
import { stubRlUpdate } from './stub_rl_update';

/** What the fake trainer reports for RL step `step` of a run (the rest of the metrics are fixed). */
export type UpdateScript = (
  step: number,
  trajectories: number,
) => Pick<RlUpdateMetrics, 'optimizerSteps' | 'skippedSteps' | 'droppedGroups'>;

/** One update the fake trainer received. */
export interface SeenUpdate {
  stack: number;
  step: number;
  cells: Array<{ taskId: string; harnessId: string; group: number }>;
}

/** A policy of seeded random tokens (a scratch model), 1…maxNew tokens per action. */
function randomPolicy(vocabSize: number): EnginePolicy {
  return { ...randomTokenPolicy(vocabSize, { label: 'fake-policy' }), destroy() {} };
}

/** The fake engine, with what its stacks were created with and every update they received. */
export function fakeEngine(script: UpdateScript): Engine & { trainerOptions: RlTrainerOptions[]; updates: SeenUpdate[] } {
  const trainerOptions: RlTrainerOptions[] = [];
  const updates: SeenUpdate[] = [];
  return {
    kind: 'wasm',
    describe: 'fake engine',
    reason: 'a test',
    trainerOptions,
    updates,
    createPolicy: (cfg) => randomPolicy(cfg.vocabSize),
    createRlStack(cfg, params, _maxB, opts): RlStack {
      const stack = trainerOptions.push(opts) - 1;
      let state: Parameters<EngineRlTrainer['writeState']>[0] = {
        params: params.slice(),
        m: new Float32Array(params.length),
        v: new Float32Array(params.length),
        adamStep: 0,
      };
      const trainer: EngineRlTrainer = {
        async update(trajs, step) {
          updates.push({
            stack,
            step,
            cells: (trajs as unknown as Array<{ taskId: string; harnessId: string; group: number }>).map((t) => ({
              taskId: t.taskId,
              harnessId: t.harnessId,
              group: t.group,
            })),
          });
          return stubRlUpdate(trajs.length, { metrics: script(step, trajs.length) });
        },
        async readState() {
          return state;
        },
        writeState(s) {
          state = s;
        },
      };
      return { policy: randomPolicy(cfg.vocabSize), trainer, readParams: async () => state.params, destroy() {} };
    },
    createSftTrainer() {
      throw new Error('fake engine: no SFT trainer');
    },
    errors: () => [],
    destroy() {},
  };
}

/** A checkpoint store that keeps the saved checkpoints' inputs in memory (no resume). */
export function memoryStore(): RunStore & { saved: CheckpointInput[] } {
  const saved: CheckpointInput[] = [];
  return {
    saved,
    async save(input) {
      saved.push(input);
      return { runId: input.meta.runId, step: input.meta.step, manifestDigest: '', totalBytes: 0, chunkCount: 0, removedSteps: [] };
    },
    async exportCheckpointBytes() {
      return new Uint8Array(0);
    },
    async importCheckpoint() {
      throw new Error('memory store: no import');
    },
    async loadLatestGood() {
      return { checkpoint: null, skipped: [] };
    },
    close() {},
  };
}
