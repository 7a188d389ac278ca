// Synthetic results file for tests/browser/app_results.spec.ts, built in the page from the real
// modules: pass rates drawn from a seeded stream (k/24, like a 24-episode evaluation), curves
// with every StepRecord metric the charts plot, and trajectories made of the scripted expert's
// real episodes (contexts and actions encoded by the real tokenizer, src/episode/rows.ts),
// sampled by sampleTrajectories with GRPO advantages from grpoTrajectoryAdvantages. The
// outcome of every second rollout of a group is set to fail (the expert always passes), so
// groups have reward variance and non-zero advantages.
import { runExpertEpisode, type ExpertEpisode } from '../../src/harness';
import { loadTokenizer } from '../../src/model/tokenizer';
import { encodeAction, encodeContext } from '../../src/episode/rows';
import type { ExperimentResults, RunResult } from '../../src/report/results_schema';
import { sampleTrajectories, type TrajectorySample } from '../../src/experiment/trajectory_sample';
import { grpoTrajectoryAdvantages } from '../unit/lib/trajectory_advantages';
import type { Trajectory } from '../../src/rollout/trajectory';
import { rlLossConfig } from '../../src/rl/config';
import { taskSet } from '../../src/tasks';
import { Rng } from '../../src/util/rng';

export const FIXTURE_METHODS = ['oa', 'random'] as const;
export const FIXTURE_SEEDS = [0, 1] as const;
const STEPS = 3;
const HARNESSES = ['S0-T0-O0-C0-W0', 'S1-T1-O1-C1-W1'];
const BLACKBOX = ['bb-assistant', 'bb-coding-cli'];

/** The results file as `hlab run` writes it (ExperimentResults at the top level) plus trajectories. */
export async function buildFixture(): Promise<string> {
  const tok = await loadTokenizer();
  const rng = new Rng(2024);
  const rate = () => rng.int(25) / 24;
  const pass = () => ({ base: rate(), inSpace: rate(), blackbox: Object.fromEntries(BLACKBOX.map((b) => [b, rate()])) });
  const beh = () => ({
    parseErrors: rng.int(8) / 4,
    workflowViolations: rng.int(4) / 4,
    recoveryRate: rng.int(5) / 4,
    stateTrackingErrors: rng.int(4) / 8,
  });
  const runs: RunResult[] = [];
  const curves: { method: string; seed: number; steps: Record<string, unknown>[] }[] = [];
  for (const method of FIXTURE_METHODS) {
    for (const seed of FIXTURE_SEEDS) {
      runs.push({
        method,
        algorithm: 'grpo',
        seed,
        rlSteps: STEPS,
        optimizerSteps: STEPS,
        skippedOptimizerSteps: 0,
        rlStepsWithoutUpdate: 0,
        before: pass(),
        after: pass(),
        trainHarnesses: { before: rate(), after: rate() },
        behaviour: { before: beh(), after: beh() },
        perHarness: Object.fromEntries(HARNESSES.map((h) => [h, rate()])),
        seconds: 10 + rng.int(10),
      });
      curves.push({
        method,
        seed,
        steps: Array.from({ length: STEPS }, (_, i) => ({
          step: i + 1,
          reward: rate(),
          passByHarness: {},
          policyLoss: rng.normal() * 0.1,
          valueLoss: 0,
          clipFrac: rng.float() * 0.2,
          approxKl: rng.float() * 0.01,
          klRef: 0,
          entropy: 1 + rng.float(),
          gradNorm: 0.5 + rng.float(),
          optimizerSteps: 1,
          skippedSteps: 0,
          rows: 8,
          tokens: 100,
          tokensPerSec: 50,
          workerRetries: 0,
          envFailures: 0,
          rolloutMs: 100,
          updateMs: 100,
        })),
      });
    }
  }
  // Per-episode outcomes for method 'oa' only: 12 tasks × 2 harnesses on the base column, 3 of 24
  // passing before and 21 + seed after, so the paired difference over the two seeds (+75.0, +79.2)
  // is decided; 'random' has none and renders n/a.
  const epRng = new Rng(77);
  for (const r of runs.filter((x) => x.method === 'oa')) {
    const cells = (passing: number) =>
      Array.from({ length: 24 }, (_, i) => {
        const pass = i < passing;
        return {
          taskId: `workspace/csv-sum/t1/${1_000_000 + (i >> 1)}`,
          harnessId: HARNESSES[i & 1],
          sample: 0,
          pass,
          score: pass ? 1 : epRng.int(3) / 4,
        };
      });
    const before = cells(3);
    const after = cells(21 + r.seed);
    const rateOf = (xs: { pass: boolean }[]) => xs.filter((x) => x.pass).length / xs.length;
    r.before.base = rateOf(before);
    r.after.base = rateOf(after);
    r.episodes = { before: { base: before }, after: { base: after } };
  }
  // Expert episodes: one workspace and one errands task, each under both harnesses.
  const tasks = [...taskSet('workspace', 'train', 1, 5), ...taskSet('errands', 'train', 1, 5)];
  const episodes: ExpertEpisode[] = tasks.flatMap((t) => HARNESSES.map((h) => runExpertEpisode(t, h)));
  const trajectories: TrajectorySample[] = [];
  for (const method of FIXTURE_METHODS) {
    for (const seed of FIXTURE_SEEDS) {
      for (let step = 1; step <= STEPS; step++) {
        const lp = Rng.derive(seed, method, step);
        // A GRPO step: each episode is a group of 2 rollouts; the second one is made to fail.
        const trajs: Trajectory[] = episodes.flatMap((ep, g) =>
          [0, 1].map((k) => {
            const ok = k === 0;
            return {
              index: 2 * g + k,
              taskId: ep.taskId,
              harnessId: ep.harness,
              group: g,
              reward: ok ? 1 : 0,
              score: ok ? 1 : 0.5,
              pass: ok,
              terminated: true,
              truncated: false,
              tags: ep.tags,
              envFailed: false,
              turns: ep.turns.map((r) => {
                const actionIds = Int32Array.from(encodeAction(tok, r.action));
                return {
                  contextIds: Int32Array.from(encodeContext(tok, r.context)),
                  actionIds,
                  logprobs: Float32Array.from(actionIds, () => -3 * lp.float()),
                  stop: 'end' as const,
                  kind: r.kind,
                };
              }),
            };
          }),
        );
        const adv = grpoTrajectoryAdvantages(
          trajs.map((t) => t.reward),
          trajs.map((t) => t.group),
          rlLossConfig(),
        );
        trajectories.push(
          ...sampleTrajectories(
            trajs,
            adv,
            { method, seed, step },
            { perStep: 2, seed: Rng.derive(seed, 'sample', step).int(2 ** 31), maxTokensPerTurn: 96 },
          ),
        );
      }
    }
  }
  const results: ExperimentResults = {
    resultsVersion: 1,
    spec: 'fixture',
    evalSet: 'stratified: 1 per distance, seed 0 (4 configs)',
    machine: 'test page',
    runs,
  };
  const full = {
    ...results,
    command: 'hlab run --spec fixture.json',
    status: 'done',
    warnings: ['synthetic fixture: numbers are drawn, not trained'],
    starts: ['scratch'],
    seconds: 42,
    curves,
    trajectories,
  };
  return JSON.stringify(full, null, 2);
}
