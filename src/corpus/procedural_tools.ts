/**
 * Procedurally randomized tool interfaces for pretraining demonstrations (docs/ARCHITECTURE.md
 * "Pretraining"): a seeded family of `ToolInterface`s over the canonical tool set, each with
 * drawn tool and argument names (some made-up, so names must be read off the prompt) and one of
 * five call syntaxes (json, func, shell, tagged, yaml; procedural_syntaxes.ts).
 *
 * Invariants (tests/unit/pretrain_procedural.test.ts): `parse(format(call))` deep-equals `call`
 * and `parse` never throws; no procedural interface accepts or writes a call as T0/T1/T2 or the
 * black-box harnesses do — guaranteed by structure, whatever words are drawn.
 */
import type { Rng } from '../util/rng';
import { PROC_SYNTAXES, type ProcSyntax, type ProcSurfaces, type ProcToolInterface } from './procedural_surface';
import { makeJson, makeFunc, makeShell, makeTagged, makeYaml } from './procedural_syntaxes';

const MAKERS: Record<ProcSyntax, (rng: Rng, surfaces: ProcSurfaces) => ProcToolInterface> = {
  json: makeJson,
  func: makeFunc,
  shell: makeShell,
  tagged: makeTagged,
  yaml: makeYaml,
};

/**
 * A procedural tool interface drawn from `rng`.
 * @param syntax force one syntax (default: uniform over PROC_SYNTAXES)
 * @param surfaces 'v2' (default) or the v1 draws of the tokenizer corpus (ProcSurfaces)
 */
export function proceduralToolInterface(rng: Rng, syntax?: ProcSyntax, surfaces: ProcSurfaces = 'v2'): ProcToolInterface {
  const s = syntax ?? rng.pick(PROC_SYNTAXES);
  const make = MAKERS[s];
  if (!make) throw new Error(`proceduralToolInterface: syntax must be one of ${PROC_SYNTAXES.join(', ')}, got '${s}'`);
  return make(rng, surfaces);
}
