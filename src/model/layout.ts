/**
 * The flat parameter layout: one f32 buffer holds every parameter, in the order of
 * docs/KERNELS.md; gradients and the AdamW moments use the same offsets.
 *
 *   wte (V,C), wpe (maxT,C);
 *   per layer l (names prefixed `h{l}.`): ln1w (C), ln1b (C), qkvw (3C,C), qkvb (3C),
 *     attprojw (C,C), attprojb (C), ln2w (C), ln2b (C), fcw (4C,C), fcb (4C),
 *     fcprojw (C,4C), fcprojb (C);
 *   lnfw (C), lnfb (C), valuew (1,C), valueb (1).
 */
import { validateConfig, type ModelConfig } from './config';
import type { Floats } from '../reference/ref_util';

interface ParamEntry {
  /** 'wte', 'wpe', 'h0.qkvw', …, 'valueb'. */
  name: string;
  /** Row-major shape. */
  shape: number[];
  /** Offset in f32 elements into the flat buffer. */
  offset: number;
  /** Product of shape. */
  size: number;
}

export interface ParamLayout {
  entries: ParamEntry[];
  /** Total parameter count P. */
  total: number;
  /** Entries by name. */
  byName: Map<string, ParamEntry>;
}

/** Names of the per-layer tensors, in layout order. */
const LAYER_PARAM_NAMES = [
  'ln1w',
  'ln1b',
  'qkvw',
  'qkvb',
  'attprojw',
  'attprojb',
  'ln2w',
  'ln2b',
  'fcw',
  'fcb',
  'fcprojw',
  'fcprojb',
] as const;
type LayerParamName = (typeof LAYER_PARAM_NAMES)[number];

/**
 * The offset table of `cfg`.
 * @throws Error naming the bad config field.
 */
export function paramLayout(cfg: ModelConfig): ParamLayout {
  validateConfig(cfg);
  const { vocabSize: V, maxT, C, L } = cfg;
  const entries: ParamEntry[] = [];
  let offset = 0;
  const add = (name: string, shape: number[]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    entries.push({ name, shape, offset, size });
    offset += size;
  };
  add('wte', [V, C]);
  add('wpe', [maxT, C]);
  const layerShapes: Record<LayerParamName, number[]> = {
    ln1w: [C],
    ln1b: [C],
    qkvw: [3 * C, C],
    qkvb: [3 * C],
    attprojw: [C, C],
    attprojb: [C],
    ln2w: [C],
    ln2b: [C],
    fcw: [4 * C, C],
    fcb: [4 * C],
    fcprojw: [C, 4 * C],
    fcprojb: [C],
  };
  for (let l = 0; l < L; l++) for (const n of LAYER_PARAM_NAMES) add(`h${l}.${n}`, layerShapes[n]);
  add('lnfw', [C]);
  add('lnfb', [C]);
  add('valuew', [1, C]);
  add('valueb', [1]);
  return { entries, total: offset, byName: new Map(entries.map((e) => [e.name, e])) };
}

/** Total parameter count P of `cfg`. */
export function paramCount(cfg: ModelConfig): number {
  return paramLayout(cfg).total;
}

/**
 * A view (no copy) of the tensor `name` inside a flat buffer laid out by `layout`.
 * @throws Error when `name` is unknown or `buf` is shorter than the layout.
 */
export function paramView<A extends Floats>(buf: A, layout: ParamLayout, name: string): A {
  const e = layout.byName.get(name);
  if (!e) throw new Error(`paramView: unknown parameter '${name}'`);
  if (buf.length < layout.total) throw new Error(`paramView: buffer has ${buf.length} values, layout needs ${layout.total}`);
  return buf.subarray(e.offset, e.offset + e.size) as A;
}
