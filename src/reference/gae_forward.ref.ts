import { checkRows, type RowDims } from './ref_util';
import { alloc, checkLen, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/gae_forward.wgsl: generalized advantage estimation (Schulman et al.
 * 2016) over the policy tokens of each row only. With t_1 < … < t_K the row's valid tokens
 * (mask > 0), masked tokens in between (observations, context, padding) carry no reward, no
 * value delta and no decay — the policy tokens form the MDP's time axis. The row's reward sits
 * on its last policy token:
 *   δ_k = γ·V(t_{k+1}) − V(t_k)                        (k < K)
 *   δ_K = r_b + γ·[truncated_b]·nextValue_b − V(t_K)    (truncated bootstraps, terminated does not)
 *   A_k = δ_k + γλ·A_{k+1},   R_k = A_k + V(t_k)  (the value-loss target).
 * Masked tokens get A = R = 0; a row without policy tokens is all 0.
 * An episode split over several rows (a harness that rewrites history, docs/ARCHITECTURE.md "Rows and trajectories") is
 * estimated row by row: its earlier rows pass reward 0, truncated = 1 and nextValue = V_old at
 * the first policy token of the following row, so the λ-return is bootstrapped (cut) at each row
 * boundary (standard truncated GAE); it differs from the unsplit estimate unless λ = 0.
 * (Chaining an episode's rows inside the kernel is a possible extension.)
 * @param rewards (B) the row's reward (the episode's outcome on its last row, 0 on earlier rows)
 * @param values (B,T) V_old from the value head at rollout time
 * @param mask (B,T)
 * @param nextValue (B) V of the state after the row (used only where truncated[b] > 0)
 * @param truncated (B) 1 when the episode was cut off (turn/token cap), 0 when it terminated
 * @returns advantages (B,T), returns (B,T)
 * @throws Error naming the argument on a size mismatch or γ, λ outside [0, 1].
 */
export function gaeForwardRef<A extends Floats>(
  rewards: A,
  values: A,
  mask: A,
  nextValue: A,
  truncated: A,
  d: RowDims,
  p: { gamma: number; lambda: number },
): { advantages: A; returns: A } {
  const op = 'gaeForwardRef';
  checkRows(op, d, { values, mask });
  checkLen(op, 'rewards', rewards, d.B, '(B)');
  checkLen(op, 'nextValue', nextValue, d.B, '(B)');
  checkLen(op, 'truncated', truncated, d.B, '(B)');
  if (!(p.gamma >= 0 && p.gamma <= 1)) throw new Error(`${op}: gamma = ${p.gamma} must be in [0, 1]`);
  if (!(p.lambda >= 0 && p.lambda <= 1)) throw new Error(`${op}: lambda = ${p.lambda} must be in [0, 1]`);
  const { B, T } = d;
  const advantages = alloc(values, B * T);
  const returns = alloc(values, B * T);
  for (let b = 0; b < B; b++) {
    let nextV = truncated[b] > 0 ? nextValue[b] : 0;
    let reward = rewards[b];
    let carry = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      const delta = reward + p.gamma * nextV - values[i];
      carry = delta + p.gamma * p.lambda * carry;
      advantages[i] = carry;
      returns[i] = carry + values[i];
      nextV = values[i];
      reward = 0;
    }
  }
  return { advantages, returns };
}
