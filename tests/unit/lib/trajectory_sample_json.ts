/**
 * A sampled trajectory as a results file holds it (src/report/results_schema.ts), for tests of
 * reading and upgrading those files: one passing rollout of workspace/organize/t1/5 under the base
 * harness at RL step 1, with the method, advantage and turns the test gives (turns as JSON, so an
 * older shape can be given too).
 */
export function trajectorySampleJson(method: string, advantage: number | number[], turns: readonly object[]) {
  return {
    method,
    seed: 0,
    step: 1,
    taskId: 'workspace/organize/t1/5',
    family: 'organize',
    harnessId: 'S0-T0-O0-C0-W0',
    group: 0,
    reward: 1,
    score: 1,
    pass: true,
    truncated: false,
    tags: null,
    advantage,
    turns,
  };
}
