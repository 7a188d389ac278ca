/**
 * Seeded parameter initialization, GPT-2 style (Radford et al. 2019; as in nanoGPT / llm.c):
 * weights and embeddings N(0, 0.02²); the two residual projections (attprojw, fcprojw) scaled
 * by 1/√(2L) so the residual stream's variance does not grow with depth; biases 0; LayerNorm
 * gain 1, bias 0; the value head N(0, 0.001²) with bias 0 so initial values are ≈ 0 and do not
 * disturb the policy through the shared trunk.
 *
 * Each tensor draws from its own stream `Rng.derive(seed, 'init', name)`, so a tensor's values
 * do not depend on the tensors before it (adding a layer leaves the embeddings unchanged).
 */
import { Rng } from '../util/rng';
import type { ModelConfig } from './config';
import { paramLayout } from './layout';

const INIT_STD = 0.02;
const VALUE_HEAD_STD = 0.001;

/** The init standard deviation of a tensor by name, or 'one' / 'zero' for constants. */
function initRule(name: string, L: number): number | 'one' | 'zero' {
  const base = name.replace(/^h\d+\./, '');
  if (base === 'ln1w' || base === 'ln2w' || base === 'lnfw') return 'one';
  if (/b$/.test(base)) return 'zero'; // every *b is a bias (ln1b, qkvb, …, valueb)
  if (base === 'attprojw' || base === 'fcprojw') return INIT_STD / Math.sqrt(2 * L);
  if (base === 'valuew') return VALUE_HEAD_STD;
  return INIT_STD; // wte, wpe, qkvw, fcw
}

/**
 * Fresh parameters for `cfg`, deterministic in `seed`.
 * @returns (P) f32 laid out by paramLayout(cfg)
 * @throws Error naming the bad config field, or a non-integer seed.
 */
export function initParams(cfg: ModelConfig, seed: number): Float32Array {
  const layout = paramLayout(cfg);
  const params = new Float32Array(layout.total);
  for (const e of layout.entries) {
    const rule = initRule(e.name, cfg.L);
    const view = params.subarray(e.offset, e.offset + e.size);
    if (rule === 'one') view.fill(1);
    else if (rule === 'zero') continue;
    else {
      const rng = Rng.derive(seed, 'init', e.name);
      for (let i = 0; i < view.length; i++) view[i] = rng.normal() * rule;
    }
  }
  return params;
}
