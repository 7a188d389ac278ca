/**
 * Procedurally randomized tool interfaces (docs/ARCHITECTURE.md "Pretraining", "procedurally randomized surface
 * forms"): a seeded family of `ToolInterface`s over the one canonical tool set, used only to
 * render pretraining demonstrations. Each draws
 *  - tool names from per-tool word lists (T1's command names included, never the coding-cli's
 *    capitalized names, never the assistant harness's `@` directives), and argument names from
 *    per-argument word lists — each name, key and tag, with probability NOVEL_NAME_P, a made-up
 *    word instead (`novelName`), so the names must be read off the prompt; all distinct within
 *    one interface,
 *  - one of five call syntaxes with random keys / tags / verbs / prefixes:
 *      `json`   {"op":"view","params":{"file":"a.txt"}}   (nested or flat; never T0's 'tool' + 'args')
 *      `func`   view(file="a.txt", text="…")               (values are JSON string literals)
 *      `shell`  $ view --file a.txt --text 'x y'           (prompt, flags or positional, quote char random)
 *      `tagged` <invoke name="view"><file>a.txt</file></invoke>  (never T2's 'call' + 'tool'; or the tool name as the tag)
 *      `yaml`   op: view\nfile: "a.txt"                    (values JSON string literals, one per line)
 *
 * Invariant (property-tested in tests/unit/pretrain_procedural.test.ts): `parse(format(call))`
 * deep-equals `call` for every canonical call with arbitrary string values, surrounding
 * whitespace tolerated; `parse` never throws. Exclusion (also tested): no procedural interface
 * accepts T0/T1/T2's or the black-box harnesses' text for a call, and none formats a call as they
 * do — the structural differences above guarantee it independently of the drawn words.
 *
 * Parts: procedural_surface.ts (syntaxes, word lists, name draws, `Names`),
 * procedural_syntaxes.ts (the five makers); this file draws one interface.
 *
 * Folder: src/corpus/ holds the text training is made of (procedural harnesses that pretraining
 * renders demonstrations under, tokenizer corpora), apart from src/pretrain/ and `hlab tokenizer`,
 * which consume it.
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
