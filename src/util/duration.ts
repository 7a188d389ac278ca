/**
 * A duration for people: "42 s", "3 min 12 s", "1 h 5 min"; "—" for a negative or non-finite value.
 * The value is rounded to the unit shown last before it is split, so 239.6 s reads "4 min 0 s",
 * never "3 min 60 s", and 59.6 s reads "1 min 0 s".
 * @param s seconds
 */
export function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  const secs = Math.round(s);
  if (secs < 60) return `${secs} s`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ${secs % 60} s`;
  const mins = Math.round(s / 60);
  return `${Math.floor(mins / 60)} h ${mins % 60} min`;
}

/**
 * A moment as the app's lists show it: date and minute in UTC, e.g. '2026-12-05 18:50 UTC'.
 * @param ms milliseconds since the epoch
 */
export function fmtUtc(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}
