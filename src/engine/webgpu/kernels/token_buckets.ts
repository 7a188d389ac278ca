/**
 * The gather order of the encoder backward pass (encoder_backward.ts uploads it): the positions of
 * each token id, so one invocation per token sums its rows' gradients without atomics. Plain CPU code.
 */

/**
 * Stable counting sort of the positions by token id: the positions of token v are
 * `pos[start[v] .. start[v+1])`, in increasing flat position b·T + t.
 * @param ids (B·T) i32 token ids
 * @param V vocabulary size
 * @returns start (V+1) u32 and pos (B·T) u32
 * @throws Error naming the first id outside [0, V).
 */
export function tokenBuckets(ids: Int32Array, V: number): { start: Uint32Array; pos: Uint32Array } {
  const start = new Uint32Array(V + 1);
  for (let i = 0; i < ids.length; i++) {
    const a = ids[i];
    if (!Number.isInteger(a) || a < 0 || a >= V) throw new Error(`tokenBuckets: ids[${i}] = ${a} is outside [0, ${V})`);
    start[a + 1]++;
  }
  for (let v = 0; v < V; v++) start[v + 1] += start[v];
  const fill = start.slice(0, V);
  const pos = new Uint32Array(Math.max(1, ids.length));
  for (let i = 0; i < ids.length; i++) pos[fill[ids[i]]++] = i;
  return { start, pos };
}
