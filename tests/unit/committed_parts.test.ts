/**
 * The committed results as the app fetches them: src/app/committed_parts.ts cuts a results.json
 * into summary / episodes / curves / sample trajectories and reads the episodes back exactly;
 * src/app/committed_fetch.ts loads a preset in steps through an in-memory Cache Storage and a
 * scripted server (stored when fetched, read from the cache offline, a missing file named).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { decodeEpisodes, splitResults } from '../../src/app/committed_parts';
import { committedMap, committedPresets, loadCommitted, type CommittedEnv, type CommittedLoad } from '../../src/app/committed_fetch';
import { memoryCaches } from './lib/memory_caches';

/** The committed files' caps, as docs/APP.md states them: points per curve, sample trajectories per run. */
const CURVE_POINTS_MAX = 200;
const TRAJECTORIES_PER_RUN = 6;
/** The Cache Storage cache the committed files are kept in (a new name drops every older copy). */
const COMMITTED_CACHE = 'hlab-committed-v1';

const lessonText = readFileSync('docs/results/lesson/results.json', 'utf8');

/** A server of `files` (URL → text; others: index.html as an SPA host answers), `down` throws like an offline fetch. */
function server(files: Map<string, string>) {
  const s = {
    down: false,
    log: [] as string[],
    fetch: async (url: string) => {
      s.log.push(url);
      if (s.down) throw new TypeError('Failed to fetch');
      const body = files.get(url);
      if (body === undefined) return new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    },
  };
  return s;
}

/** A results.json with `steps` RL steps per curve and `traj` trajectories per (run, step). */
function synthetic(steps: number, traj = 2) {
  const runs = [0, 1].map((seed) => ({
    method: 'm',
    seed,
    episodes: {
      before: { base: [{ taskId: 'a/b/t1/5', harnessId: 'S0-T0-O0-C0-W0', sample: 0, pass: true, score: 1 }] },
      after: { base: [] },
    },
  }));
  const curves = [0, 1].map((seed) => ({
    method: 'm',
    seed,
    steps: Array.from({ length: steps }, (_, i) => ({ step: i + 1, reward: i / steps })),
    validation: [{ step: 0, passAt1: 0.5, cells: [{ taskId: 'x' }] }],
  }));
  const trajectories = [0, 1].flatMap((seed) =>
    Array.from({ length: steps * traj }, (_, k) => ({ method: 'm', seed, step: 1 + Math.floor(k / traj), pass: k % 2 === 0, index: k })),
  );
  return { resultsVersion: 1, spec: 's', evalSet: 'e', machine: 'x', runs, curves, trajectories };
}

describe('committed parts', () => {
  it('cut the lesson results.json: the summary has no curves, trajectories or episodes; episodes read back exactly', () => {
    const json = JSON.parse(lessonText);
    const parts = splitResults(json);
    expect([...parts.keys()]).toEqual(['summary.json', 'episodes.json', 'curves.json', 'trajectories.json']);
    const summary = JSON.parse(parts.get('summary.json')!);
    expect(summary.curves).toBeUndefined();
    expect(summary.trajectories).toBeUndefined();
    expect(summary.runs.every((r: object) => !('episodes' in r))).toBe(true);
    expect(summary.committedParts.episodes).toBe(json.runs.length);
    const eps = decodeEpisodes(JSON.parse(parts.get('episodes.json')!), json.runs.length);
    expect(eps).toEqual(json.runs.map((r: { episodes: unknown }) => r.episodes));
    // The columnar form is several times smaller than the cells as objects.
    expect(parts.get('episodes.json')!.length * 4).toBeLessThan(
      JSON.stringify(json.runs.map((r: { episodes: unknown }) => r.episodes)).length,
    );
  });

  it('curves keep at most CURVE_POINTS_MAX points per series (first and last kept); validation points lose their cells; ≤ TRAJECTORIES_PER_RUN trajectories per run', () => {
    const few = JSON.parse(splitResults(synthetic(5)).get('curves.json')!).curves;
    for (const c of few) expect(c.steps.map((s: { step: number }) => s.step)).toEqual([1, 2, 3, 4, 5]);
    const parts = splitResults(synthetic(1000));
    const { curves } = JSON.parse(parts.get('curves.json')!);
    for (const c of curves) {
      expect(c.steps).toHaveLength(CURVE_POINTS_MAX);
      expect([c.steps[0].step, c.steps.at(-1).step]).toEqual([1, 1000]);
      expect(c.validation).toEqual([{ step: 0, passAt1: 0.5 }]);
    }
    const { trajectories } = JSON.parse(parts.get('trajectories.json')!);
    for (const seed of [0, 1]) {
      const mine = trajectories.filter((t: { seed: number }) => t.seed === seed);
      expect(mine).toHaveLength(TRAJECTORIES_PER_RUN);
      expect(new Set(mine.map((t: { step: number }) => t.step))).toEqual(new Set([1, 500, 1000]));
    }
    const meta = JSON.parse(parts.get('summary.json')!).committedParts;
    expect(meta).toEqual({
      episodes: 2,
      curves: { series: 2, stepsMax: 1000, pointsMax: CURVE_POINTS_MAX },
      trajectories: { kept: 12, of: 4000 },
    });
  });

  it('bad episodes are refused with the field named', () => {
    const part = JSON.parse(splitResults(synthetic(3)).get('episodes.json')!);
    part.runs[1].before.base[4][0] = 1.5;
    expect(() => decodeEpisodes(part, 2)).toThrow('runs[1].before.base: score[0] 1.5 is not in [0, 1]');
    expect(() => decodeEpisodes(part, 3)).toThrow('runs: expected 3 entries');
  });
});

describe('committed fetch', () => {
  const base = '/app/';
  const filesOf = () => {
    const files = new Map<string, string>([[`${base}committed/index.json`, JSON.stringify({ presets: ['lesson'] })]]);
    for (const [name, text] of splitResults(JSON.parse(lessonText))) files.set(`${base}committed/lesson/${name}`, text);
    return files;
  };

  it('loads the summary first, then each part; every file is stored, so the preset loads again offline', async () => {
    const mem = memoryCaches();
    const srv = server(filesOf());
    const env: CommittedEnv = { caches: mem.caches, fetch: srv.fetch, base };
    expect(await committedPresets(env)).toEqual(['lesson']);
    const updates: CommittedLoad[] = [];
    const last = await loadCommitted('lesson', ['curves', 'episodes', 'trajectories'], (l) => updates.push(l), env);
    // One update with the summary and curves, then one per other part.
    expect(updates).toHaveLength(3);
    expect(updates[0].output.curves.length).toBeGreaterThan(0);
    expect(last.pending).toEqual([]);
    expect(last.errors).toEqual([]);
    expect(last.output.results.runs[0].episodes).toEqual(JSON.parse(lessonText).runs[0].episodes);
    expect(last.output.trajectories!.length).toBeGreaterThan(0);
    expect(mem.opened.every((n) => n === COMMITTED_CACHE)).toBe(true);
    expect([...mem.store.keys()].sort()).toEqual([...filesOf().keys()].sort());
    // Offline, in a new tab (a fresh module, nothing remembered): a stored file answers from the
    // cache; one never fetched says so.
    srv.down = true;
    vi.resetModules();
    const fresh = await import('../../src/app/committed_fetch');
    expect(await fresh.committedPresets(env)).toEqual(['lesson']);
    const online = (await loadCommitted('lesson', [], undefined, env)).output.results;
    expect((await fresh.loadCommitted('lesson', [], undefined, env)).output.results).toEqual(online);
    await expect(fresh.loadCommitted('main', [], undefined, env)).rejects.toThrow(
      '/app/committed/main/summary.json could not be fetched (Failed to fetch) and was never fetched in this browser',
    );
  });

  it('a missing preset and a part that fails are named; the summary still shows', async () => {
    const files = filesOf();
    files.delete(`${base}committed/lesson/curves.json`);
    const env: CommittedEnv = { caches: undefined, fetch: server(files).fetch, base: '/other/' };
    for (const [k, v] of [...files]) files.set(k.replace(base, '/other/'), v);
    await expect(loadCommitted('nope', [], undefined, env)).rejects.toThrow(
      '/other/committed/nope/summary.json: not on the server (HTTP 200, an HTML page)',
    );
    const last = await loadCommitted('lesson', ['curves', 'episodes'], undefined, env);
    expect(last.errors).toEqual(['curves: /other/committed/lesson/curves.json: not on the server (HTTP 200, an HTML page)']);
    expect(last.output.curves).toEqual([]);
    expect(last.output.results.runs[0].episodes).toBeDefined();
  });

  it('the map of conditions is docs/results/map.json as committed; a cell without its verdicts is named', async () => {
    const mapText = readFileSync('docs/results/map.json', 'utf8');
    const files = new Map([[`/m/committed/map.json`, mapText]]);
    const map = await committedMap({ caches: undefined, fetch: server(files).fetch, base: '/m/' });
    expect(map).toEqual({ cells: JSON.parse(mapText).cells, inProgress: JSON.parse(mapText).inProgress });
    // An older map.json without inProgress reads as none in progress.
    const older = JSON.stringify({ cells: JSON.parse(mapText).cells });
    const fetchOlder = server(new Map([['/old/committed/map.json', older]])).fetch;
    expect((await committedMap({ caches: undefined, fetch: fetchOlder, base: '/old/' })).inProgress).toEqual([]);
    const badProgress = JSON.stringify({ cells: [], inProgress: [{ preset: 'map-x' }] });
    const fetchBadProgress = server(new Map([['/badp/committed/map.json', badProgress]])).fetch;
    await expect(committedMap({ caches: undefined, fetch: fetchBadProgress, base: '/badp/' })).rejects.toThrow(
      '/badp/committed/map.json: inProgress[0] lacks its place, preset, planned seeds or per-seed differences',
    );
    const bad = JSON.parse(mapText);
    delete bad.cells[0].verdicts;
    const fetchBad = server(new Map([['/bad/committed/map.json', JSON.stringify(bad)]])).fetch;
    await expect(committedMap({ caches: undefined, fetch: fetchBad, base: '/bad/' })).rejects.toThrow(
      '/bad/committed/map.json: cells[0] lacks its place, preset, seeds, bands, verdicts, floor or startInSpace',
    );
  });
});
