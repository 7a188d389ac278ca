/**
 * Where a run's starting parameters come from (the runner's "start" phase, runner.ts): the base
 * checkpoint of a model preset (public/base-<preset>.ckpt through the app's asset cache, or the
 * CLI's --base file), checked against the preset's config and the tokenizer, or a seeded random
 * init when the spec asks for 'scratch'; and the pretraining mix the base checkpoints record
 * (the in-space set leaves it out).
 */
import type { ModelConfig } from '../model/config';
import { initParams } from '../model/init';
import type { Tokenizer } from '../model/tokenizer';
import { decodeBaseCheckpoint, type BaseCheckpoint } from '../model/checkpoint';
import { checkpointBudget, checkRunBudget, runBudget } from '../model/budget';
import { mixUnion, NO_MIX, pretrainMixOf } from '../pretrain/mix';
import { assetFetch, baseCheckpointUrl } from '../util/asset_fetch';
import { Rng } from '../util/rng';
import type { Emit } from './run_events';
import type { ExperimentSpec } from './spec';

/** A base checkpoint as loaded for a preset: decoded, or why it cannot be (missing, corrupt). */
export type BaseLoad = ({ url: string; ck: BaseCheckpoint } | { url: string; why: string }) & { explicit: boolean };

/**
 * Load the base checkpoint of `preset` (the explicit --base file when given): through the app's
 * asset cache (filled at load; a remembered absence answers 404), so a run started offline asks
 * no network. Never throws: a failure is returned as `why`.
 * `explicit` says whether it was the user's --base file: startingParams throws for an unusable
 * one instead of falling back (only the shipped default may fall back).
 */
export async function loadBase(preset: string, explicit?: Uint8Array): Promise<BaseLoad> {
  const url = explicit ? '(--base file)' : baseCheckpointUrl(preset);
  try {
    const res = explicit ? null : await assetFetch(url);
    // Vite answers a missing file with the app's index.html (SPA fallback), not a 404.
    if (res && (!res.ok || (res.headers.get('content-type') ?? '').includes('text/html')))
      return { url, why: `public/base-${preset}.ckpt not found: no base checkpoint ships yet`, explicit: !!explicit };
    return { url, ck: await decodeBaseCheckpoint(res ? new Uint8Array(await res.arrayBuffer()) : explicit!), explicit: !!explicit };
  } catch (e) {
    return { url, why: (e as Error).message.split('\n')[0], explicit: !!explicit };
  }
}

/**
 * The pretraining mix the in-space set leaves out: the union of the mixes recorded by the base
 * checkpoints the spec's methods start from (none when spec.model.init is not 'base'; a
 * checkpoint that cannot be loaded contributes none, and its run starts from scratch).
 * @throws Error naming the field when a checkpoint's recorded mix is malformed (src/pretrain/mix.ts pretrainMixOf).
 */
export function baseMix(spec: ExperimentSpec, loads: ReadonlyMap<string, BaseLoad>): { ids: string[]; label: string } {
  if (spec.model.init !== 'base') return mixUnion([]);
  return mixUnion([...loads].map(([preset, load]) => [preset, 'ck' in load ? pretrainMixOf(load.ck.header.metadata) : NO_MIX] as const));
}

/**
 * The starting parameters: with spec.model.init = 'base' the pretrained base checkpoint (`load`,
 * public/base-<preset>.ckpt or --base), which must exist and match the tokenizer and config;
 * with 'scratch' a seeded random init. A random init never replaces an unusable base.
 * @throws Error naming the checkpoint and the ways out when it is unusable (the CLI refuses such a run before the browser starts)
 */
export function startingParams(
  spec: ExperimentSpec,
  cfg: ModelConfig,
  preset: string,
  seed: number,
  tok: Tokenizer,
  warnings: string[],
  emit: Emit,
  load: BaseLoad | undefined,
): { params: Float32Array; source: string } {
  if (spec.model.init === 'base') {
    if (!load) throw new Error(`spec.model.init = 'base' but no base checkpoint was loaded for preset '${preset}'`);
    const url = load.url;
    let why = 'why' in load ? load.why : '';
    if ('ck' in load) {
      const ck = load.ck;
      const c = ck.header.config;
      if (c.vocabSize !== cfg.vocabSize || c.maxT !== cfg.maxT || c.C !== cfg.C || c.L !== cfg.L || c.NH !== cfg.NH)
        why = `its config ${JSON.stringify(c)} does not match preset '${preset}' ${JSON.stringify(cfg)}`;
      else if (ck.header.tokenizer.name !== tok.name) why = `it was trained with tokenizer '${ck.header.tokenizer.name}', not '${tok.name}'`;
      else {
        // Same cut for rollouts as for the rows the base learned on (throws on a mismatch unless the spec allows it).
        const note = checkRunBudget(checkpointBudget(c.maxT, ck.header.metadata), runBudget(cfg.maxT, spec.rollout), spec.rollout.allowBudgetMismatch === true);
        if (note && !warnings.includes(note)) {
          warnings.push(note);
          emit({ type: 'warn', message: note });
        }
        return { params: ck.params, source: `base checkpoint ${url} (digest ${ck.header.digest.slice(0, 12)})` };
      }
    }
    // Never replaced by a random init: only model.init 'scratch' asks for one (the CLI verifies the file first; this guards the app and other callers).
    throw new Error(
      `${load.explicit ? '--base file' : `spec.model.init = 'base' but the base checkpoint ${url}`} is unusable (${why}): build it with \`npm run -s hlab -- pretrain --preset ${preset} --out public/base-${preset}.ckpt\`, pass --base FILE, or set model.init to 'scratch'`,
    );
  }
  return { params: initParams(cfg, Rng.derive(seed, 'init').int(2 ** 31)), source: 'scratch (seeded random init)' };
}
