/**
 * A difference of two pass rates (fractions) as signed percentage points, the way every report,
 * the map and the app print it: "+4.2", "−0.7" (a minus sign, not a hyphen). Its own module so the
 * Train view prints it without loading the comparison statistics.
 */
export const signedPoints = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/**
 * A difference with its interval over training runs, in points: "+4.2 [+1.0, +7.4]", or
 * "+4.2 (1 seed)" when one seed gives no interval.
 * @param p fractions of pass@1 (seed_interval.ts SeedInterval: diff, lo, hi, seeds)
 */
export const pointsInterval = (p: { diff: number; lo: number; hi: number; seeds: number }): string =>
  p.seeds < 2 ? `${signedPoints(p.diff)} (1 seed)` : `${signedPoints(p.diff)} [${signedPoints(p.lo)}, ${signedPoints(p.hi)}]`;
