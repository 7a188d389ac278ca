/**
 * A duration for people: "42 s", "3 min 12 s", "1 h 5 min"; "—" for a negative or non-finite value.
 * @param s seconds
 */
export function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
