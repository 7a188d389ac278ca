/**
 * The committed results of the presets, fetched when a preset is opened (never bundled): the
 * files committed_parts.ts describes, served under `<base>committed/` by vite.config.ts
 * (`committedResults`: dev middleware, and the same files written into dist/ by the build).
 *
 * A preset loads in steps: its summary (runs, facts, spec) first, then the parts a view asks
 * for — episodes (intervals, paired differences, per-family tables), curves and sample
 * trajectories — each shown as it arrives. Every file fetched is stored in Cache Storage
 * (`hlab-committed-v1`) and read from there when the network fails, so a preset opened once opens
 * offline; within a tab each file is fetched and checked once.
 */
import { openNamedCache } from '../util/asset_fetch';
import { COMMITTED_DIR, MAP_FILE, committedFile, decodeEpisodes, type CommittedPart, type CommittedPartsMeta } from './committed_parts';
import { isMissingAsset } from '../util/asset_fetch';
import { parseCurvesJson, parseResultsFile, parseTrajectoriesJson, type ExperimentOutputJson } from './results_store';
import type { CellProgress, MapCell, MapPlace } from '../experiment/conditions_map';

/** The Cache Storage cache of fetched committed files; bump the version when their form changes. */
const COMMITTED_CACHE = 'hlab-committed-v1';

/** What the fetches use; tests pass fakes. */
export interface CommittedEnv {
  /** Cache Storage, or undefined where it does not exist (Node, insecure origins). */
  caches: CacheStorage | undefined;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /** The app's base URL, ending in '/' (Vite's BASE_URL). */
  base: string;
}

function defaultEnv(): CommittedEnv {
  const g = globalThis as { caches?: CacheStorage };
  return { caches: g.caches, fetch: (input, init) => globalThis.fetch(input, init), base: import.meta.env?.BASE_URL ?? '/' };
}

const openCache = (env: CommittedEnv) => openNamedCache(env.caches, COMMITTED_CACHE);

/**
 * One committed file as JSON: from the network (then stored in the cache), or from the cache when
 * the network fails (offline).
 * @param file path under `committed/` (`index.json`, `main/summary.json`)
 * @throws Error naming the URL: not on the server (HTTP error or an HTML page), not JSON, or
 *   not reachable and never fetched before in this browser
 */
async function fetchCommittedJson(file: string, env: CommittedEnv = defaultEnv()): Promise<unknown> {
  const url = `${env.base}${COMMITTED_DIR}/${file}`;
  const cache = await openCache(env);
  let res: Response;
  try {
    res = await env.fetch(url);
  } catch (e) {
    const hit = cache ? await cache.match(url).catch(() => undefined) : undefined;
    if (hit) return hit.json();
    throw new Error(
      `${url} could not be fetched (${(e as Error).message}) and was never fetched in this browser: open it once while online`,
    );
  }
  if (isMissingAsset(res)) throw new Error(`${url}: not on the server (HTTP ${res.status}${res.ok ? ', an HTML page' : ''})`);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${url}: not JSON (${(e as Error).message.split('\n')[0]})`);
  }
  // A full or refused cache only costs the offline copy.
  await cache?.put(url, new Response(text, { headers: { 'content-type': 'application/json' } })).catch(() => undefined);
  return json;
}

/** A promise kept while pending or fulfilled, forgotten when rejected (so a later call retries, e.g. back online). */
function remember<T>(memo: Map<string, Promise<unknown>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    memo.set(key, p);
    p.catch(() => memo.delete(key));
  }
  return p;
}

const memo = new Map<string, Promise<unknown>>();

/**
 * The presets with committed results (index.json), in name order; fetched once per tab.
 * @throws Error when the index cannot be fetched (see fetchCommittedJson) or is malformed
 */
export function committedPresets(env: CommittedEnv = defaultEnv()): Promise<string[]> {
  return remember(memo, `${env.base}index`, async () => {
    const j = (await fetchCommittedJson('index.json', env)) as { presets?: unknown };
    if (!Array.isArray(j?.presets) || !j.presets.every((p) => typeof p === 'string'))
      throw new Error(`${env.base}${COMMITTED_DIR}/index.json: expected { presets: string[] }`);
    return j.presets as string[];
  });
}

/** Whether a map.json entry names its preset and its place on the map (exposure, steps, dynamic sampling). */
function isPlacedPreset(x: Partial<MapPlace & { preset: string }> | null): boolean {
  return (
    !!x &&
    typeof x.preset === 'string' &&
    typeof x.exposure === 'string' &&
    typeof x.steps === 'number' &&
    typeof x.dynamicSampling === 'boolean'
  );
}

/**
 * The map of conditions (map.json: docs/results/map.json as scripts/claims.ts wrote it): its
 * cells in the map's order and the places running in seed chunks (absent in older files: none);
 * fetched once per tab.
 * @throws Error when the file cannot be fetched (see fetchCommittedJson), a cell lacks its
 *   place, preset, seeds, verdicts, floor or starting in-space pass@1, or a place in progress its
 *   place, planned seeds or per-seed differences (naming the entry)
 */
export function committedMap(env: CommittedEnv = defaultEnv()): Promise<{ cells: MapCell[]; inProgress: CellProgress[] }> {
  return remember(memo, `${env.base}map`, async () => {
    const j = (await fetchCommittedJson(MAP_FILE, env)) as { cells?: unknown; inProgress?: unknown };
    const where = `${env.base}${COMMITTED_DIR}/${MAP_FILE}`;
    if (!Array.isArray(j?.cells)) throw new Error(`${where}: expected { cells: [...] }`);
    j.cells.forEach((c: Partial<MapCell> | null, i) => {
      const ok =
        c &&
        isPlacedPreset(c) &&
        Array.isArray(c.seeds) &&
        Array.isArray(c.verdicts) &&
        c.verdicts.every(
          (v) => typeof v?.set?.key === 'string' && typeof v.comparison?.pass?.diff === 'number' && typeof v.direction === 'string',
        ) &&
        Array.isArray(c.bands) &&
        typeof c.floor === 'boolean' &&
        (typeof c.startInSpace === 'number' || c.startInSpace === null);
      if (!ok) throw new Error(`${where}: cells[${i}] lacks its place, preset, seeds, bands, verdicts, floor or startInSpace`);
    });
    const inProgress = j.inProgress ?? [];
    if (!Array.isArray(inProgress)) throw new Error(`${where}: expected inProgress: [...]`);
    inProgress.forEach((p: Partial<CellProgress> | null, i) => {
      const ok =
        p &&
        isPlacedPreset(p) &&
        Array.isArray(p.planned) &&
        Array.isArray(p.perSeed) &&
        p.perSeed.every((x) => typeof x?.seed === 'number' && typeof x.inSpace === 'number');
      if (!ok) throw new Error(`${where}: inProgress[${i}] lacks its place, preset, planned seeds or per-seed differences`);
    });
    return { cells: j.cells as MapCell[], inProgress: inProgress as CellProgress[] };
  });
}

interface Summary {
  out: ExperimentOutputJson;
  meta: CommittedPartsMeta | null;
}

function summaryOf(preset: string, env: CommittedEnv): Promise<Summary> {
  return remember(memo, `${env.base}${preset}/summary`, async () => {
    const json = await fetchCommittedJson(committedFile(preset, 'summary'), env);
    const out = parseResultsFile(json, `docs/results/${preset}/results.json`);
    return { out, meta: ((json as { committedParts?: CommittedPartsMeta }).committedParts ?? null) as CommittedPartsMeta | null };
  });
}

type Episodes = ReturnType<typeof decodeEpisodes>;

function partOf(preset: string, part: CommittedPart, s: Summary, env: CommittedEnv): Promise<unknown> {
  return remember(memo, `${env.base}${preset}/${part}`, async () => {
    const source = `${COMMITTED_DIR}/${committedFile(preset, part)}`;
    // What the summary says is not there is not fetched.
    if (part === 'episodes')
      return s.meta?.episodes === 0
        ? null
        : decodeEpisodes(await fetchCommittedJson(committedFile(preset, part), env), s.out.results.runs.length, source);
    if (part === 'curves')
      return s.meta?.curves.series === 0
        ? []
        : parseCurvesJson(((await fetchCommittedJson(committedFile(preset, part), env)) as { curves?: unknown })?.curves, source);
    return s.meta?.trajectories.kept === 0
      ? []
      : parseTrajectoriesJson(
          ((await fetchCommittedJson(committedFile(preset, part), env)) as { trajectories?: unknown })?.trajectories,
          source,
        );
  });
}

/** A committed preset as far as it is loaded. */
export interface CommittedLoad {
  /** The output: the summary with every part loaded so far (a new object at each step). */
  output: ExperimentOutputJson;
  /** Parts asked for and still loading. */
  pending: CommittedPart[];
  /** One line per part that failed: `curves: <why>`. */
  errors: string[];
}

/** Where an output came from when it is a committed preset's: the preset and what its parts hold. */
interface CommittedOrigin {
  preset: string;
  meta: CommittedPartsMeta | null;
}

/** The committed origin of an output built by loadCommitted, or null for any other output. */
export function committedOrigin(out: ExperimentOutputJson): CommittedOrigin | null {
  return ((out as { committedOrigin?: CommittedOrigin }).committedOrigin ?? null) as CommittedOrigin | null;
}

/**
 * Load a committed preset: the summary, then `parts`. `onUpdate` gets the output once the summary
 * and the curves (when asked for: small, and a curve section would otherwise say there are none)
 * are in, then again as each other part arrives or fails.
 * @param preset a name of `committedPresets()`
 * @returns the last update (every part settled)
 * @throws Error when the summary cannot be fetched or is invalid (ResultsFileError naming the
 *   field); a part that fails is reported in `errors` instead
 */
export async function loadCommitted(
  preset: string,
  parts: readonly CommittedPart[],
  onUpdate: (l: CommittedLoad) => void = () => {},
  env: CommittedEnv = defaultEnv(),
): Promise<CommittedLoad> {
  const s = await summaryOf(preset, env);
  const got = new Map<CommittedPart, unknown>();
  const errors = new Map<CommittedPart, string>();
  const build = (): CommittedLoad => {
    const ep = got.get('episodes') as Episodes | null | undefined;
    const results = ep
      ? { ...s.out.results, runs: s.out.results.runs.map((r, i) => (ep[i] ? { ...r, episodes: ep[i] } : r)) }
      : s.out.results;
    const output: ExperimentOutputJson = { ...s.out, results };
    if (got.has('curves')) output.curves = got.get('curves') as ExperimentOutputJson['curves'];
    if (got.has('trajectories')) output.trajectories = got.get('trajectories') as NonNullable<ExperimentOutputJson['trajectories']>;
    const origin: CommittedOrigin = { preset, meta: s.meta };
    Object.assign(output, { committedOrigin: origin });
    return { output, pending: parts.filter((p) => !got.has(p) && !errors.has(p)), errors: [...errors].map(([p, e]) => `${p}: ${e}`) };
  };
  let last: CommittedLoad | null = null;
  const emit = () => onUpdate((last = build()));
  const settle = (p: CommittedPart) =>
    partOf(preset, p, s, env).then(
      (v) => void got.set(p, v),
      (e: Error) => void errors.set(p, e.message),
    );
  const loads = new Map(parts.map((p) => [p, settle(p)] as const));
  await loads.get('curves');
  emit();
  await Promise.all([...loads].filter(([p]) => p !== 'curves').map(([, l]) => l.then(emit)));
  return last ?? build();
}
