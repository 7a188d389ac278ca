/**
 * A difference of two pass rates (fractions) as signed percentage points, the way every report,
 * the map and the app print it: "+4.2", "−0.7" (a minus sign, not a hyphen). Its own module so the
 * Train view prints it without loading the comparison statistics.
 */
export const signedPoints = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
