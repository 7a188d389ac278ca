/** Helpers shared by the page-side and the Node-side (TF.js-wasm) pretraining drivers. DOM- and GPU-free. */
import { taskSet } from '../tasks';
import type { SuiteName, Task, Tier } from '../tasks/types';
import { Rng } from '../util/rng';

/** Bytes → base64 (btoa in chunks; works in pages, workers and Node ≥ 16). */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Evaluation tasks: `n` train tasks of `suites` (default both), lowest tier first (seeded). */
export function evalTaskList(n: number, seed: number, suites: readonly SuiteName[] = ['workspace', 'errands']): Task[] {
  const pool = suites.flatMap((s) => taskSet(s, 'train', 3 * n, Rng.derive(seed, 'eval-tasks', s === 'workspace' ? 'w' : 'e').int(2 ** 31)));
  const byTier = (t: Tier) => pool.filter((x) => x.tier === t);
  return [...byTier(1), ...byTier(2), ...byTier(3)].slice(0, n);
}
