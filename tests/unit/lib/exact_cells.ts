// Evaluation cells with an exactly known pass rate, for tests that must know each difference to the point.

// Tasks per harness: rates resolve to multiples of 1/20.
const EXACT_TASKS = 20;

/**
 * Cells of one harness set where task t passes iff (t + shift) mod 20 < round(20·rate), so every
 * harness's pass rate is exactly round(20·rate)/20; `shift` moves which tasks pass (seed to seed)
 * without moving the rate.
 */
export const exactCells = (rate: number, harnesses: readonly string[], shift: number) =>
  harnesses.flatMap((harnessId) =>
    Array.from({ length: EXACT_TASKS }, (_, t) => {
      const pass = (t + shift) % EXACT_TASKS < Math.round(EXACT_TASKS * rate);
      return { taskId: `workspace/misplaced/t${t}`, harnessId, sample: 0, pass, score: pass ? 1 : 0 };
    }),
  );
