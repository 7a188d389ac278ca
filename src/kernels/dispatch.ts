/**
 * Workgroup-count helpers shared by the kernel launchers.
 */

/**
 * Split `groups` workgroups over x and y so neither exceeds `maxPerDim` (65535 by default).
 * Shaders recover the linear id as `gid.x + gid.y * num_workgroups.x * WG`.
 */
export function grid1d(groups: number, maxPerDim = 65535): [number, number] {
  if (groups <= maxPerDim) return [Math.max(1, groups), 1];
  const y = Math.ceil(groups / maxPerDim);
  return [Math.ceil(groups / y), y];
}
