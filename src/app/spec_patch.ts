/**
 * Compact, shareable spec edits for the Train view's URL: a JSON Merge Patch (RFC 7386) from
 * a preset to the edited spec — `{"rl":{"steps":3}}` rather than the whole spec — plus a short
 * stable id of a spec (its run id in the checkpoint store).
 *
 * Pure, DOM-free.
 */
import { hashString } from '../util/rng';
import { sortedJson } from '../util/encoding';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The merge patch that turns `from` into `to` (RFC 7386 §2 semantics): objects are compared
 * key by key, a key missing from `to` becomes null, anything else that differs (numbers,
 * strings, arrays) is replaced whole. `applyMergePatch(from, mergePatch(from, to))` equals `to`
 * as long as `to` holds no null inside an object (RFC 7386 cannot express those; the spec
 * schema's only nullable field, rl.dualClip, is reproduced anyway when the preset has it null).
 * @returns the patch, or undefined when the two are equal.
 */
export function mergePatch(from: unknown, to: unknown): Json | undefined {
  if (isObject(from) && isObject(to)) {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
    for (const [k, v] of Object.entries(to)) {
      const d = k in from ? mergePatch(from[k], v) : (v as Json);
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? undefined : (structuredClone(to) as Json);
}

/**
 * Apply a JSON Merge Patch (RFC 7386 §2): a non-object patch replaces the target; an object
 * patch merges key by key, null deleting the key. Neither input is modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/**
 * 8 hex digits of FNV-1a (32-bit, util/rng.ts hashString) over the canonical JSON: a short id
 * that changes whenever the spec does (not a cryptographic hash: it only keeps different specs'
 * checkpoints apart).
 */
export function specHash(v: unknown): string {
  return hashString(sortedJson(v)).toString(16).padStart(8, '0');
}
