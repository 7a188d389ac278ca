/**
 * The harness space (docs/ARCHITECTURE.md "Harness space and design"): named components, each with its realizations, and the
 * configurations h = (l_1, …, l_k) that pick one realization (a *level*) per component.
 *
 * A configuration is handled in two forms:
 * - a **level vector** `number[]` of length k, entry i in 0..s_i−1 (s_i = number of
 *   realizations of component i); index 0 is the base realization;
 * - a **harness id** string, the realization ids joined by '-', e.g. `S0-T1-O2-C0-W1`
 *   ⇔ [0, 1, 2, 0, 1].
 *
 * Everything here is generic over spaces with any number of components and any level counts
 * (e.g. levels [2, 3, 3, 4]); `DEFAULT_SPACE` is the 3^5 space of docs/ARCHITECTURE.md "Harness space and design" (243 configs).
 * The behaviour of the realizations lives in src/harness/; here only ids and descriptions.
 */

/** One realization of a component: `id` is the component key followed by its level, e.g. 'O2'. */
interface Realization {
  /** `${component.key}${level}`, e.g. 'S0'. */
  id: string;
  /** Short name, e.g. 'line-numbered'. */
  name: string;
  /** One-line description. */
  description: string;
}

/** A component of the harness (a factor of the design): key, name and its realizations (levels). */
interface HarnessComponent {
  /** Short key used in ids: one upper-case letter followed by optional letters, e.g. 'S'. */
  key: string;
  /** Human-readable name, e.g. 'system prompt'. */
  name: string;
  /** Realizations in level order; index 0 is the base realization. At least 2. */
  realizations: Realization[];
}

/** A harness space: an ordered list of components (the factors of the design). */
export interface HarnessSpace {
  components: HarnessComponent[];
}

/** A configuration as levels: entry i is the realization index of component i. */
export type LevelVector = readonly number[];

/** The default space of docs/ARCHITECTURE.md "Harness space and design": S, T, O, C, W with three realizations each (3^5 = 243). */
export const DEFAULT_SPACE: HarnessSpace = {
  components: [
    {
      key: 'S',
      name: 'system prompt',
      realizations: [
        { id: 'S0', name: 'concise', description: 'concise role, tool list and one example call' },
        { id: 'S1', name: 'rules-first', description: 'long rules-first prompt, sections reordered, extra constraints' },
        { id: 'S2', name: 'workspace-bootstrap', description: 'role, user profile and tool notes as separate bootstrap "files"' },
      ],
    },
    {
      key: 'T',
      name: 'tool interface',
      realizations: [
        { id: 'T0', name: 'json', description: 'tool calls as JSON objects' },
        { id: 'T1', name: 'shell', description: 'shell-like commands with renamed tools' },
        { id: 'T2', name: 'tagged', description: 'XML-like tagged calls with renamed arguments' },
      ],
    },
    {
      key: 'O',
      name: 'observation',
      realizations: [
        { id: 'O0', name: 'raw', description: 'raw tool output text' },
        { id: 'O1', name: 'json-envelope', description: 'JSON envelope with status and error codes' },
        { id: 'O2', name: 'line-numbered', description: 'line-numbered, truncated to a line budget with an "N more lines" note' },
      ],
    },
    {
      key: 'C',
      name: 'context management',
      realizations: [
        { id: 'C0', name: 'full-history', description: 'full history kept' },
        { id: 'C1', name: 'last-k', description: 'only the last k observations kept, older ones replaced by a placeholder' },
        { id: 'C2', name: 'summary-compaction', description: 'past turns replaced by a state summary once a token budget is passed' },
      ],
    },
    {
      key: 'W',
      name: 'workflow',
      realizations: [
        { id: 'W0', name: 'free', description: 'free act-until-finish' },
        { id: 'W1', name: 'plan-first', description: 'a plan message required before any tool call' },
        { id: 'W2', name: 'todo-verify', description: 'track a todo list and re-read what was written before finish' },
      ],
    },
  ],
};

/** The base harness of the default space: every component at its base realization. */
export const BASE_HARNESS = 'S0-T0-O0-C0-W0';

const KEY_RE = /^[A-Z][A-Za-z]*$/;

/** Number of realizations per component, e.g. [3, 3, 3, 3, 3] for the default space. */
export function spaceLevels(space: HarnessSpace = DEFAULT_SPACE): number[] {
  return space.components.map((c) => c.realizations.length);
}

/** Number of configurations Π s_i (243 for the default space). */
export function spaceSize(space: HarnessSpace = DEFAULT_SPACE): number {
  return spaceLevels(space).reduce((a, s) => a * s, 1);
}

/**
 * Check a space: ≥ 1 component, unique keys matching /^[A-Z][A-Za-z]*$/, ≥ 2 realizations each,
 * realization ids equal to key + level.
 * @throws Error naming the bad component or realization.
 */
export function validateSpace(space: HarnessSpace): void {
  if (!space || !Array.isArray(space.components) || space.components.length === 0) {
    throw new Error('harness space: components must be a non-empty array');
  }
  const seen = new Set<string>();
  space.components.forEach((c, i) => {
    if (!KEY_RE.test(c.key)) throw new Error(`harness space: component ${i + 1} key '${c.key}' must match ${KEY_RE}`);
    if (seen.has(c.key)) throw new Error(`harness space: duplicate component key '${c.key}'`);
    seen.add(c.key);
    if (!Array.isArray(c.realizations) || c.realizations.length < 2) {
      throw new Error(`harness space: component '${c.key}' needs at least 2 realizations, has ${c.realizations?.length ?? 0}`);
    }
    c.realizations.forEach((r, l) => {
      if (r.id !== `${c.key}${l}`)
        throw new Error(`harness space: component '${c.key}' realization ${l} has id '${r.id}', expected '${c.key}${l}'`);
    });
  });
}

/**
 * A space with the given level counts. Levels equal to the default's ([3,3,3,3,3]) give
 * `DEFAULT_SPACE`; any other list gets generic components keyed A, B, C, … (at most 26)
 * with placeholder realizations — useful for designs over other factor lists.
 * @param levels s_i ≥ 2 per component, integers.
 * @throws Error naming the bad entry.
 */
export function spaceFromLevels(levels: readonly number[]): HarnessSpace {
  if (!Array.isArray(levels) || levels.length === 0) throw new Error('levels: expected a non-empty list of level counts');
  if (levels.length > 26) throw new Error(`levels: at most 26 components, got ${levels.length}`);
  levels.forEach((s, i) => {
    if (!Number.isInteger(s) || s < 2) throw new Error(`levels: entry ${i + 1} must be an integer ≥ 2, got ${s}`);
  });
  const def = spaceLevels(DEFAULT_SPACE);
  if (levels.length === def.length && levels.every((s, i) => s === def[i])) return DEFAULT_SPACE;
  return {
    components: levels.map((s, i) => {
      const key = String.fromCharCode(65 + i);
      return {
        key,
        name: `factor ${key}`,
        realizations: Array.from({ length: s }, (_, l) => ({
          id: `${key}${l}`,
          name: `level ${l}`,
          description: `factor ${key} at level ${l}`,
        })),
      };
    }),
  };
}

/**
 * Format a level vector as a harness id, e.g. [0,1,2,0,1] → 'S0-T1-O2-C0-W1'.
 * @throws Error when the length or a level is out of range (naming the component).
 */
export function formatHarnessId(levels: LevelVector, space: HarnessSpace = DEFAULT_SPACE): string {
  checkLevelVector(levels, space);
  return levels.map((l, i) => space.components[i].realizations[l].id).join('-');
}

/**
 * Parse a harness id, e.g. 'S0-T1-O2-C0-W1' → [0, 1, 2, 0, 1]. Parts must appear in
 * component order, each as key + decimal level.
 * @throws Error naming the bad part, e.g.
 *   "harness id 'S0-T1-O7-C0-W1': component 3 'O7': level 7 out of range 0..2".
 */
export function parseHarnessId(id: string, space: HarnessSpace = DEFAULT_SPACE): number[] {
  if (typeof id !== 'string') throw new Error(`harness id: expected a string, got ${typeof id}`);
  const comps = space.components;
  const parts = id.trim().split('-');
  const expected = comps.map((c) => `${c.key}<level>`).join('-');
  if (parts.length !== comps.length) {
    throw new Error(`harness id '${id}': expected ${comps.length} parts (${expected}), got ${parts.length}`);
  }
  return parts.map((part, i) => {
    const c = comps[i];
    const where = `harness id '${id}': component ${i + 1} '${part}'`;
    if (!part.startsWith(c.key)) throw new Error(`${where}: expected component key '${c.key}' (format ${expected})`);
    const digits = part.slice(c.key.length);
    if (!/^\d+$/.test(digits)) throw new Error(`${where}: level must be a decimal integer after '${c.key}'`);
    const l = Number(digits);
    const s = c.realizations.length;
    if (l >= s) throw new Error(`${where}: level ${l} out of range 0..${s - 1}`);
    return l;
  });
}

/**
 * Check that `levels` is a configuration of `space`.
 * @throws Error naming the component and level when out of range.
 */
function checkLevelVector(levels: LevelVector, space: HarnessSpace = DEFAULT_SPACE): void {
  const comps = space.components;
  if (!Array.isArray(levels) || levels.length !== comps.length) {
    throw new Error(`level vector: expected ${comps.length} entries, got ${Array.isArray(levels) ? levels.length : typeof levels}`);
  }
  levels.forEach((l, i) => {
    const s = comps[i].realizations.length;
    if (!Number.isInteger(l) || l < 0 || l >= s) {
      throw new Error(`level vector [${levels.join(',')}]: component ${i + 1} '${comps[i].key}': level ${l} out of range 0..${s - 1}`);
    }
  });
}

/**
 * Every configuration of the space as level vectors, in lexicographic (mixed-radix) order,
 * first component most significant: index = Σ l_i · Π_{j>i} s_j. Length Π s_i.
 */
export function enumerateSpace(space: HarnessSpace = DEFAULT_SPACE): number[][] {
  const levels = spaceLevels(space);
  const n = spaceSize(space);
  const out: number[][] = [];
  for (let idx = 0; idx < n; idx++) out.push(configFromIndex(idx, levels));
  return out;
}

/** Mixed-radix index of a level vector (first component most significant). */
export function configIndex(levels: LevelVector, radices: readonly number[]): number {
  let idx = 0;
  for (let i = 0; i < radices.length; i++) idx = idx * radices[i] + levels[i];
  return idx;
}

/** Inverse of `configIndex`. */
export function configFromIndex(index: number, radices: readonly number[]): number[] {
  const v = new Array<number>(radices.length);
  for (let i = radices.length - 1; i >= 0; i--) {
    v[i] = index % radices[i];
    index = Math.floor(index / radices[i]);
  }
  return v;
}

/**
 * Hamming distance d_H(h_i, h_j): the number of components where two configurations differ.
 * Accepts level vectors or harness ids (ids are parsed in `space`).
 * @throws Error when the configurations have different lengths or an id is malformed.
 */
export function hammingDistance(a: LevelVector | string, b: LevelVector | string, space: HarnessSpace = DEFAULT_SPACE): number {
  const va = typeof a === 'string' ? parseHarnessId(a, space) : a;
  const vb = typeof b === 'string' ? parseHarnessId(b, space) : b;
  if (va.length !== vb.length) throw new Error(`hammingDistance: configurations differ in length (${va.length} vs ${vb.length})`);
  let d = 0;
  for (let i = 0; i < va.length; i++) if (va[i] !== vb[i]) d++;
  return d;
}

/** The realizations a configuration picks, in component order (for display). */
export function describeHarness(levels: LevelVector, space: HarnessSpace = DEFAULT_SPACE): Realization[] {
  checkLevelVector(levels, space);
  return levels.map((l, i) => space.components[i].realizations[l]);
}
