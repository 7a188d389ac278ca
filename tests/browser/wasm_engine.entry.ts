// Runs in the page: the CPU engine on Web Workers (shared memory, cross-origin isolated) and
// the engine choice, for wasm_engine.spec.ts.
import { WasmEngine } from '../../src/engine/wasm/wasm_runtime';
import { WasmModel } from '../../src/engine/wasm/wasm_model';
import { initParams } from '../../src/model/init';
import { chooseEngine } from '../../src/engine/choose';
import { WebGpuEngine } from '../../src/engine/webgpu/webgpu_engine';
import { Rng } from '../../src/util/rng';
import { logprobCase, worst } from './lib/logprob_case';

/** Gradients of one forward/backward on 1 and on 2 threads (Web Workers), as arrays, plus the engine facts. */
export async function gradsByThreads() {
  const cfg = { vocabSize: 53, maxT: 40, C: 32, L: 2, NH: 4 };
  const p = initParams(cfg, 3);
  const rng = new Rng(5);
  for (let i = 0; i < p.length; i++) p[i] += 0.2 * rng.normal();
  const B = 3;
  const T = 37;
  const ids = Int32Array.from({ length: B * T }, () => rng.int(cfg.vocabSize));
  const lengths = Int32Array.of(37, 20, 9);
  const scored = Int32Array.from([0, 5, 36, 37 + 3, 37 + 19, 74 + 8]);
  const dl = Float32Array.from({ length: scored.length * cfg.vocabSize }, () => rng.float() - 0.5);
  const out: Record<number, number[]> = {};
  for (const threads of [1, 2]) {
    const e = await WasmEngine.create({ threads, parallelMinWork: 0 });
    const m = WasmModel.create(e, cfg);
    m.writeParams(p);
    const f = m.forward(ids, lengths, B, T, scored, true);
    const d = m.scratch(dl.length, 'dlogits');
    d.write(dl);
    m.backward(f, d, null);
    out[threads] = Array.from(m.grads.read());
    e.destroy();
  }
  let nonzero = 0;
  for (const g of out[1]) if (g !== 0) nonzero++;
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated,
    identical: out[1].every((g, i) => Object.is(g, out[2][i])),
    nonzero,
    P: out[1].length,
  };
}

/** What each backend choice resolves to on this page's adapter. */
export async function backendChoices() {
  const r: Record<string, { kind: string; reason: string; describe: string }> = {};
  for (const c of ['auto', 'webgpu', 'wasm'] as const) {
    const b = await chooseEngine(c);
    r[c] = { kind: b.kind, reason: b.reason, describe: b.describe };
    b.destroy();
    if (b instanceof WebGpuEngine) b.gpu.device.destroy();
  }
  return r;
}

/**
 * The CPU engine's logprob_forward/backward at temperature τ on 1 and 2 threads (Web Workers):
 * max |got − ref| / (atol + rtol·|ref|) of logp (atol 1e-5, rtol 1e-5) and of dlogits (atol 1e-6,
 * rtol 1e-4) against the references at τ (logits of std 3), and whether the threads agree bit
 * for bit.
 */
export async function logprobAtTemperature(tau: number) {
  const out: Record<number, { logp: number[]; dlogits: number[]; logpErr: number; dlogitsErr: number }> = {};
  for (const threads of [1, 2]) {
    const e = await WasmEngine.create({ threads, parallelMinWork: 0 });
    const c = logprobCase(e, tau, { S: 9, V: 53, seed: 8, hugeRow: false });
    out[threads] = {
      logp: Array.from(c.logp),
      dlogits: Array.from(c.dlogits),
      logpErr: worst(c.logp, c.ref.logprob, 1e-5, 1e-5),
      dlogitsErr: worst(c.dlogits, c.refD, 1e-6, 1e-4),
    };
    e.destroy();
  }
  const same = (x: number[], y: number[]) => x.every((v, i) => Object.is(v, y[i]));
  return {
    logpErr: Math.max(out[1].logpErr, out[2].logpErr),
    dlogitsErr: Math.max(out[1].dlogitsErr, out[2].dlogitsErr),
    identical: same(out[1].logp, out[2].logp) && same(out[1].dlogits, out[2].dlogits),
  };
}
