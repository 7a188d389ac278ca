/**
 * One case of the CPU engine's logprob_forward / logprob_backward at temperature τ against their
 * references (src/kernels/logprob_{forward,backward}.ref.ts), shared by the Node unit test
 * (tests/unit/wasm_logprob.test.ts) and the page entry that runs it on Web Workers
 * (tests/browser/wasm_engine.entry.ts). Runs on any WasmEngine; its memory is released.
 */
import type { WasmEngine } from '../../../src/engine/wasm/wasm_runtime';
import { logprobBackward, logprobForward } from '../../../src/engine/wasm/wasm_kernels';
import { logprobForwardRef } from '../../../src/reference/logprob_forward.ref';
import { logprobBackwardRef } from '../../../src/reference/logprob_backward.ref';
import { Rng } from '../../../src/util/rng';

/** max |got − ref| / (atol + rtol·|ref|) over elements [lo, hi). */
export function worst(got: ArrayLike<number>, ref: ArrayLike<number>, atol: number, rtol: number, lo = 0, hi = ref.length): number {
  let w = 0;
  for (let i = lo; i < hi; i++) w = Math.max(w, Math.abs(got[i] - ref[i]) / (atol + rtol * Math.abs(ref[i])));
  return w;
}

/**
 * S rows of V std-3 logits (the last row at ±1e4 when `hugeRow`), seeded targets and loss
 * coefficients (row 2's coefficient 0 when `hugeRow`), through both kernels at τ.
 * @returns the engine's logp (S), lse (S), dlogits (S·V) and the references: `ref` the forward's,
 *   `refD` = −logprobBackwardRef(…, coef, τ) with the engine's own lse (the engine's coef is −∂L/∂ℓ)
 */
export function logprobCase(e: WasmEngine, tau: number, o: { S: number; V: number; seed: number; hugeRow: boolean }) {
  const { S, V } = o;
  const r = new Rng(o.seed);
  const z = Float32Array.from({ length: S * V }, () => 3 * r.normal());
  if (o.hugeRow) for (let v = 0; v < V; v++) z[(S - 1) * V + v] = (v % 2 ? 1e4 : -1e4) + r.normal();
  const targets = Int32Array.from({ length: S }, () => r.int(V));
  const coef = Float32Array.from({ length: S }, () => r.normal());
  if (o.hugeRow) coef[2] = 0;
  const mark = e.mark();
  const zl = e.alloc(S * V, 'logits');
  zl.f32().set(z);
  const tg = e.alloc(S, 'targets');
  tg.i32().set(targets);
  const lse = e.alloc(S, 'lse');
  const lp = e.alloc(S, 'logp');
  const cf = e.alloc(S, 'coef');
  cf.f32().set(coef);
  const dl = e.alloc(S * V, 'dlogits');
  logprobForward(e, zl, tg, lse, lp, { S, V, temperature: tau });
  logprobBackward(e, zl, tg, lse, cf, dl, { S, V, temperature: tau });
  const ref = logprobForwardRef(Float64Array.from(z), targets, { N: S, V }, tau);
  const refD = logprobBackwardRef(
    Float64Array.from(z),
    targets,
    Float64Array.from(lse.f32()),
    Float64Array.from(coef, (c) => -c),
    { N: S, V },
    tau,
  );
  const out = { logp: lp.f32().slice(), lse: lse.f32().slice(), dlogits: dl.f32().slice(), ref, refD };
  e.release(mark);
  return out;
}
