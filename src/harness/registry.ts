/**
 * Harness ids → harnesses. Any of the 243 ids of the default space (`S0-T1-O2-C0-W1`) builds a
 * `ComposedHarness` from the realizations; 'bb-coding-cli' and 'bb-assistant' build the
 * black-box harnesses.
 */
import { DEFAULT_SPACE, enumerateSpace, formatHarnessId, parseHarnessId } from '../design/space';
import { ASSISTANT_ID, AssistantHarness, type AssistantOptions } from './blackbox/assistant';
import { CODING_CLI_ID, CodingCliHarness, type CodingCliOptions } from './blackbox/coding_cli';
import { ComposedHarness, type Components } from './composed';
import type { BaseHarnessOptions } from './base';
import { CONTEXT_POLICIES } from './realizations/context';
import { OBSERVATION_FORMATS } from './realizations/observation';
import { SYSTEM_PROMPTS } from './realizations/system';
import { TOOL_INTERFACES } from './realizations/tool_interface';
import { WORKFLOWS } from './realizations/workflow';
import type { Harness } from './types';

/** The black-box harness ids, in a fixed order. */
export const BLACKBOX_IDS = [CODING_CLI_ID, ASSISTANT_ID] as const;
type BlackboxId = (typeof BLACKBOX_IDS)[number];

/** The 15 realizations indexed by component key and level (matches DEFAULT_SPACE's order). */
const REALIZATIONS = {
  S: SYSTEM_PROMPTS,
  T: TOOL_INTERFACES,
  O: OBSERVATION_FORMATS,
  C: CONTEXT_POLICIES,
  W: WORKFLOWS,
} as const;

/** Every in-space id (243 for the default space), in enumeration order. */
export function allComposedIds(): string[] {
  return enumerateSpace(DEFAULT_SPACE).map((v) => formatHarnessId(v, DEFAULT_SPACE));
}

/** The 243 in-space ids followed by the black-box ids. */
export function allHarnessIds(): string[] {
  return [...allComposedIds(), ...BLACKBOX_IDS];
}

export function isBlackboxId(id: string): id is BlackboxId {
  return (BLACKBOX_IDS as readonly string[]).includes(id);
}

/** The realizations a composed id picks. @throws Error naming a malformed id. */
export function componentsOf(id: string): Components {
  const [s, t, o, c, w] = parseHarnessId(id, DEFAULT_SPACE);
  return { S: REALIZATIONS.S[s], T: REALIZATIONS.T[t], O: REALIZATIONS.O[o], C: REALIZATIONS.C[c], W: REALIZATIONS.W[w] };
}

/**
 * Build a harness from an id.
 * @param id one of the 243 ids (e.g. 'S0-T1-O2-C0-W1') or 'bb-coding-cli' / 'bb-assistant'.
 * @throws Error naming the unknown id (and what was wrong with it).
 */
export function createHarness(id: string, opts: BaseHarnessOptions & CodingCliOptions & AssistantOptions = {}): Harness {
  if (id === CODING_CLI_ID) return new CodingCliHarness(opts);
  if (id === ASSISTANT_ID) return new AssistantHarness(opts);
  let comps: Components;
  try {
    comps = componentsOf(id);
  } catch (e) {
    // The parser's message already quotes the id; drop its own prefix so the id appears once.
    const detail = (e as Error).message.replace(/^harness id '[^']*':\s*/, '');
    throw new Error(`unknown harness id '${id}': ${detail}; use an id like S0-T1-O2-C0-W1 or one of ${BLACKBOX_IDS.join(', ')}`);
  }
  return new ComposedHarness(id, comps, opts);
}
