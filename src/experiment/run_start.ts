/**
 * Where a run's starting parameters come from (the runner's "start" phase, runner.ts): a shipped
 * checkpoint of a model preset — the base public/base-<preset>.ckpt (or the CLI's --base file),
 * or the one a method names in `init` (spec.ts SHIPPED_CHECKPOINTS, e.g. the black-box SFT
 * checkpoint public/sft-<preset>-bb-coding-cli.ckpt) — read through the app's asset cache and
 * checked against the preset's config and the tokenizer, or a seeded random init when the spec
 * asks for 'scratch'; and the pretraining mix the base checkpoints record (the in-space set
 * leaves it out: the spec-level base's, the same for every method).
 */
import type { ModelConfig } from '../model/config';
import { initParams } from '../model/init';
import type { Tokenizer } from '../model/tokenizer';
import { decodeBaseCheckpoint, type BaseCheckpoint } from '../model/checkpoint';
import { checkpointBudget, checkRunBudget, runBudget } from '../model/budget';
import { mixUnion, NO_MIX, pretrainMixOf } from '../pretrain/mix';
import { assetFetch, isMissingAsset, shippedCheckpointUrl } from '../util/asset_fetch';
import { Rng } from '../util/rng';
import type { Emit } from './run_events';
import { methodInit, type ExperimentSpec, type MethodSpec, type ShippedCheckpoint } from './spec';

/**
 * A shipped checkpoint as loaded for a preset: decoded, or why it cannot be (missing, corrupt).
 * `explicit` says whether it was the user's --base file: startingParams throws for an unusable
 * one naming --base instead of the shipped file.
 */
export type CheckpointLoad = ({ url: string; ck: BaseCheckpoint } | { url: string; why: string }) & { name: ShippedCheckpoint; preset: string; explicit: boolean };

/** The key of a loaded starting checkpoint in the runner's map: its name and model preset. */
const startKey = (name: ShippedCheckpoint, preset: string): string => `${name}/${preset}`;

/**
 * Load the shipped checkpoint `name` of `preset` (for 'base', the explicit --base file when
 * given) through the app's asset cache (filled at load; a remembered absence answers 404), so a
 * run started offline asks no network. Never throws: a failure is returned as `why`.
 * @param fetchAsset how a same-origin path is fetched (the asset cache; tests read public/ from disk)
 */
async function loadCheckpoint(
  name: ShippedCheckpoint,
  preset: string,
  explicit?: Uint8Array,
  fetchAsset: (url: string) => Promise<Response> = assetFetch,
): Promise<CheckpointLoad> {
  const isExplicit = !!explicit && name === 'base';
  const url = isExplicit ? '(--base file)' : shippedCheckpointUrl(name, preset);
  const at = { name, preset, explicit: isExplicit };
  try {
    const res = isExplicit ? null : await fetchAsset(url);
    // Vite answers a missing file with the app's index.html (SPA fallback), not a 404.
    if (res && isMissingAsset(res)) return { url, why: `public${url} not found: no ${name} checkpoint ships for preset '${preset}'`, ...at };
    return { url, ck: await decodeBaseCheckpoint(res ? new Uint8Array(await res.arrayBuffer()) : explicit!), ...at };
  } catch (e) {
    return { url, why: (e as Error).message.split('\n')[0], ...at };
  }
}

/**
 * Every shipped checkpoint the spec's runs start from, keyed by `startKey`: with spec.model.init
 * = 'base' the base of each method's preset — also for a method with its own `init`, since the
 * in-space set leaves out the base's mix for every method alike — plus each method's own `init`.
 * @param explicitBase the CLI's --base file: replaces the 'base' checkpoints only
 */
export async function loadStartingCheckpoints(
  spec: ExperimentSpec,
  explicitBase?: Uint8Array,
  fetchAsset?: (url: string) => Promise<Response>,
): Promise<Map<string, CheckpointLoad>> {
  const wanted = new Map<string, [ShippedCheckpoint, string]>();
  for (const m of spec.methods) {
    const preset = m.modelPreset ?? spec.model.preset;
    for (const name of [spec.model.init, methodInit(spec, m)]) if (name !== 'scratch') wanted.set(startKey(name, preset), [name, preset]);
  }
  const loads = new Map<string, CheckpointLoad>();
  for (const [key, [name, preset]] of wanted) loads.set(key, await loadCheckpoint(name, preset, explicitBase, fetchAsset));
  return loads;
}

/**
 * The pretraining mix the in-space set leaves out: the union of the mixes recorded by the base
 * checkpoints of the spec's model presets (none when spec.model.init is not 'base'; a base that
 * cannot be loaded contributes none, and its run is refused at start). Checkpoints a method
 * names in `init` do not count: the set is the spec-level one, the same for every method.
 * @throws Error naming the field when a checkpoint's recorded mix is malformed (src/pretrain/mix.ts pretrainMixOf).
 */
export function baseMix(spec: ExperimentSpec, loads: ReadonlyMap<string, CheckpointLoad>): { ids: string[]; label: string } {
  if (spec.model.init !== 'base') return mixUnion([]);
  const bases = [...loads.values()].filter((l) => l.name === 'base');
  return mixUnion(bases.map((load) => [load.preset, 'ck' in load ? pretrainMixOf(load.ck.header.metadata) : NO_MIX] as const));
}

/**
 * The starting parameters of a run of `method`: its `init` (else spec.model.init) — a shipped
 * checkpoint from `loads` (loadStartingCheckpoints: public/base-<preset>.ckpt or --base, or e.g.
 * public/sft-<preset>-bb-coding-cli.ckpt), which must exist and match the tokenizer and config —
 * or for 'scratch' a seeded random init. A random init never replaces an unusable checkpoint.
 * @returns the (P) f32 parameters, where they came from ('… checkpoint public/<file> (digest <12 hex>)',
 *   the file in the repository rather than the URL path the page fetches),
 *   and the command the checkpoint records having made it (its metadata.command), if any
 * @throws Error naming the method's init, the checkpoint and the ways out when it is unusable (the CLI refuses such a run before the browser starts)
 */
export function startingParams(
  spec: ExperimentSpec,
  method: MethodSpec,
  cfg: ModelConfig,
  seed: number,
  tok: Tokenizer,
  warnings: string[],
  emit: Emit,
  loads: ReadonlyMap<string, CheckpointLoad>,
): { params: Float32Array; source: string; command?: string } {
  const init = methodInit(spec, method);
  if (init === 'scratch') return { params: initParams(cfg, Rng.derive(seed, 'init').int(2 ** 31)), source: 'scratch (seeded random init)' };
  const preset = method.modelPreset ?? spec.model.preset;
  const what = method.init ? `method '${method.name}' init '${init}'` : `spec.model.init = '${init}'`;
  const load = loads.get(startKey(init, preset));
  if (!load) throw new Error(`${what} but no such checkpoint was loaded for preset '${preset}'`);
  const url = load.url;
  // Named by its file in the repository (public/…), not the URL path the page fetches it from.
  const file = load.explicit ? url : `public${url}`;
  let why = 'why' in load ? load.why : '';
  if ('ck' in load) {
    const ck = load.ck;
    const c = ck.header.config;
    if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH)
      why = `its config ${JSON.stringify(c)} does not match preset '${preset}' ${JSON.stringify(cfg)}`;
    else if (ck.header.tokenizer.name !== tok.name) why = `it was trained with tokenizer '${ck.header.tokenizer.name}', not '${tok.name}'`;
    else {
      // Same cut for rollouts as for the rows the checkpoint learned on (throws on a mismatch unless the spec allows it).
      const note = checkRunBudget(checkpointBudget(c.maxT, ck.header.metadata), runBudget(cfg.maxT, spec.rollout), spec.rollout.allowBudgetMismatch === true);
      if (note && !warnings.includes(note)) {
        warnings.push(note);
        emit({ type: 'warn', message: note });
      }
      const command = ck.header.metadata.command;
      return {
        params: ck.params,
        source: `${init === 'base' ? 'base' : `'${init}'`} checkpoint ${file} (digest ${ck.header.digest.slice(0, 12)})`,
        ...(typeof command === 'string' ? { command } : {}),
      };
    }
  }
  // Never replaced by a random init: only 'scratch' asks for one (the CLI verifies the files first; this guards the app and other callers).
  const fix =
    init === 'base'
      ? `build it with \`npm run -s hlab -- pretrain --preset ${preset} --out public/base-${preset}.ckpt\`, pass --base FILE, or set model.init to 'scratch'`
      : `rebuild it with the command in ${file}.json, or drop the method's init`;
  throw new Error(`${load.explicit ? '--base file' : `${what} but the checkpoint ${file}`} is unusable (${why}): ${fix}`);
}
