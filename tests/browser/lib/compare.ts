/**
 * Tolerance comparison used by every kernel test: |got − ref| ≤ atol + rtol·|ref|, elementwise.
 * NaN or ±Inf in `got` fails unless `ref` has the same non-finite value at that index.
 */
export interface CloseReport {
  ok: boolean;
  /** Elements compared. */
  n: number;
  /** Largest |got − ref| over finite pairs. */
  maxAbsErr: number;
  /** Index of the first failing element, −1 if none. */
  firstBad: number;
  /** got and ref at firstBad (NaN when none). */
  got: number;
  ref: number;
}

/**
 * Compare two arrays within `atol + rtol·|ref|`.
 * @throws Error when the lengths differ.
 */
export function allClose(got: ArrayLike<number>, ref: ArrayLike<number>, atol: number, rtol: number): CloseReport {
  if (got.length !== ref.length) throw new Error(`allClose: length mismatch got=${got.length} ref=${ref.length}`);
  let maxAbsErr = 0;
  let firstBad = -1;
  for (let i = 0; i < got.length; i++) {
    const g = got[i];
    const r = ref[i];
    if (!Number.isFinite(r) || !Number.isFinite(g)) {
      if (!Object.is(g, r) && !(Number.isNaN(g) && Number.isNaN(r)) && firstBad < 0) firstBad = i;
      continue;
    }
    const err = Math.abs(g - r);
    if (err > maxAbsErr) maxAbsErr = err;
    if (err > atol + rtol * Math.abs(r) && firstBad < 0) firstBad = i;
  }
  return {
    ok: firstBad < 0,
    n: got.length,
    maxAbsErr,
    firstBad,
    got: firstBad < 0 ? NaN : got[firstBad],
    ref: firstBad < 0 ? NaN : ref[firstBad],
  };
}
