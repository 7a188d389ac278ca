/**
 * Regenerate docs/RESULTS.md's generated tables (claims, in-space breakdown, schedule coverage,
 * the map of conditions, what dynamic sampling changed, the harness-count curve), docs/results/claims.json and docs/results/map.json (the app's copies)
 * and the figures docs/results/map.svg and harness-count/scaling.svg from docs/results/<preset>/results.json (src/experiment/claims.ts,
 * conditions_map.ts), or check that they are current.
 *
 *   npx tsx scripts/claims.ts           # rewrite the blocks between the markers
 *   npx tsx scripts/claims.ts --check   # exit 1 when RESULTS.md differs from the data
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CLAIMS,
  claimsJson,
  claimsTable,
  currentDesign,
  generatedBlocks,
  withBlocks,
  type CommittedResults,
  type RerunProgress,
} from '../src/experiment/claims';
import { ExperimentResultsSchema } from '../src/report/results_schema';
import { upgradeRuns } from '../src/report/results_upgrade';
import { cellProgress, conditionsMap, mapMarkdown, type CellProgress } from '../src/experiment/conditions_map';
import { conditionsMapSvg } from '../src/experiment/conditions_map_svg';
import { samplingEffects, samplingMarkdown } from '../src/experiment/sampling_effect';
import { bandsMarkdown } from '../src/experiment/conditions_map_bands';
import { sizeEffect, sizeMarkdown } from '../src/experiment/size_effect';
import { sftControl, sftControlMarkdown } from '../src/experiment/sft_control';
import { HARNESS_COUNT, HARNESSES_PER_TASK, kSweepMarkdown, sweepCurve, sweepMarkdown } from '../src/experiment/sweep_curve';
import { sweepSvg } from '../src/experiment/sweep_svg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_DOC = `${ROOT}docs/RESULTS.md`;
/** The claims table for the app's Results view. */
export const CLAIMS_JSON = `${ROOT}docs/results/claims.json`;
/** The map of conditions for the app's Results view, and as a figure. */
export const MAP_JSON = `${ROOT}docs/results/map.json`;
export const MAP_SVG = `${ROOT}docs/results/map.svg`;
/** The sweep curves as figures: harness-count's N sweep, diversity's K sweep (current design only). */
export const COUNT_SVG = `${ROOT}docs/results/harness-count/scaling.svg`;
export const K_SWEEP_SVG = `${ROOT}docs/results/diversity/k-sweep.svg`;
/** Presets read for a generated block other than the claims and the map. */
const OTHER_PRESETS = ['harness-count'];

/** A results.json read and validated as the claims read it (older shapes upgraded), with its resolved spec. */
function readResults(file: string): CommittedResults {
  return parseResults(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}

function parseResults(raw: Record<string, unknown>): CommittedResults {
  const res = ExperimentResultsSchema.parse({ ...raw, runs: upgradeRuns(raw.runs, raw.curves) }) as unknown as CommittedResults;
  return { ...res, specJson: raw.specJson };
}

const mapPresetsIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => d.startsWith('map-'))
        .sort()
    : [];

/** The committed results of every preset a claim or block reads and of every map preset (`map-*`; absent presets left out), validated. */
export function loadCommitted(dir = `${ROOT}docs/results`): Map<string, CommittedResults> {
  const out = new Map<string, CommittedResults>();
  for (const preset of [...new Set([...CLAIMS.map((c) => c.preset), ...OTHER_PRESETS, ...mapPresetsIn(dir)])]) {
    const file = `${dir}/${preset}/results.json`;
    if (existsSync(file)) out.set(preset, readResults(file));
  }
  return out;
}

/**
 * The map presets running in seed chunks: each `map-*` folder without a merged results.json whose
 * chunks/<name>/results.json are committed (finished ones only), against the seeds its preset
 * (public/presets/<preset>.json) plans.
 */
export function loadProgress(dir = `${ROOT}docs/results`, presets = `${ROOT}public/presets`): CellProgress[] {
  const out: CellProgress[] = [];
  for (const preset of mapPresetsIn(dir)) {
    const chunks = `${dir}/${preset}/chunks`;
    if (existsSync(`${dir}/${preset}/results.json`) || !existsSync(chunks)) continue;
    const done = readdirSync(chunks)
      .sort()
      .map((c) => `${chunks}/${c}/results.json`)
      .filter((f) => existsSync(f))
      .map((f) => JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>)
      .filter((raw) => raw.status === 'done')
      .map(parseResults);
    if (!done.length) continue;
    const planned = (JSON.parse(readFileSync(`${presets}/${preset}.json`, 'utf8')) as { seeds: number[] }).seeds;
    const p = cellProgress(
      preset,
      done[0].specJson,
      done.flatMap((r) => r.runs),
      planned,
    );
    if (p) out.push(p);
  }
  return out;
}

/** Whether results.json's spec uses the current design (claims.ts: the in-space set stratified by distance to the base harness). */
const isCurrent = (specJson: unknown) =>
  (specJson as { evaluation?: { inSpace?: { by?: string } } } | undefined)?.evaluation?.inSpace?.by === 'base';

/**
 * The claims' presets (other than the map's) being re-run in seed chunks: a `chunks/` folder with
 * finished chunks of the current design beside no merged results.json or one of the old design.
 */
export function loadRerun(dir = `${ROOT}docs/results`, presets = `${ROOT}public/presets`): Map<string, RerunProgress> {
  const out = new Map<string, RerunProgress>();
  for (const preset of new Set(CLAIMS.map((c) => c.preset))) {
    const chunks = `${dir}/${preset}/chunks`;
    if (!existsSync(chunks) || !existsSync(`${presets}/${preset}.json`)) continue;
    const merged = `${dir}/${preset}/results.json`;
    if (existsSync(merged) && isCurrent((JSON.parse(readFileSync(merged, 'utf8')) as { specJson?: unknown }).specJson)) continue;
    const done = readdirSync(chunks)
      .map((c) => `${chunks}/${c}/results.json`)
      .filter((f) => existsSync(f))
      .map((f) => JSON.parse(readFileSync(f, 'utf8')) as { status?: string; specJson?: { seeds?: number[] } })
      .filter((r) => r.status === 'done' && isCurrent(r.specJson))
      .flatMap((r) => r.specJson?.seeds ?? [])
      .sort((x, y) => x - y);
    if (!done.length) continue;
    const planned = (JSON.parse(readFileSync(`${presets}/${preset}.json`, 'utf8')) as { seeds: number[] }).seeds.length;
    out.set(preset, { done, planned });
  }
  return out;
}

/** RESULTS.md as the data says it should read. */
export function regenerated(
  doc = readFileSync(RESULTS_DOC, 'utf8'),
  results = loadCommitted(),
  progress = loadProgress(),
  rerun = loadRerun(),
): string {
  const cells = conditionsMap(results);
  return withBlocks(doc, {
    ...generatedBlocks(results, rerun),
    map: mapMarkdown(cells, progress),
    bands: bandsMarkdown(cells),
    sampling: samplingMarkdown(samplingEffects(results)),
    'harness-count': sweepMarkdown(countCurve(results), '_No committed `harness-count` results._'),
    'k-sweep': kSweepMarkdown(results.get('diversity'), currentK(results), rerun.get('diversity')),
    sizes: sizeMarkdown(sizeEffect(results)),
    'sft-control': sftControlMarkdown(sftControl(results)),
  });
}

const countCurve = (results: ReadonlyMap<string, CommittedResults>) => {
  const res = results.get('harness-count');
  return res ? sweepCurve(res, HARNESS_COUNT) : null;
};
const currentK = (results: ReadonlyMap<string, CommittedResults>) => {
  const res = results.get('diversity');
  return res !== undefined && currentDesign(res);
};

/** The sweep figures as the data says they should read, by file; null where there is no curve to draw. */
export function regeneratedSweepSvgs(results = loadCommitted()): Map<string, string | null> {
  const k = currentK(results) ? sweepCurve(results.get('diversity')!, HARNESSES_PER_TASK) : null;
  const n = countCurve(results);
  return new Map([
    [COUNT_SVG, n ? sweepSvg(n) : null],
    [K_SWEEP_SVG, k ? sweepSvg(k) : null],
  ]);
}

/** docs/results/map.json and map.svg as the data says they should read. */
export function regeneratedMap(results = loadCommitted(), progress = loadProgress()): { json: string; svg: string } {
  const cells = conditionsMap(results);
  return {
    json: `${JSON.stringify({ generatedBy: 'scripts/claims.ts', cells, inProgress: progress }, null, 2)}\n`,
    svg: conditionsMapSvg(cells, progress),
  };
}

/** docs/results/claims.json as the data says it should read. */
export function regeneratedJson(results = loadCommitted(), rerun = loadRerun()): string {
  return `${JSON.stringify(claimsJson(claimsTable(results, rerun)), null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = loadCommitted();
  const doc = readFileSync(RESULTS_DOC, 'utf8');
  const next = regenerated(doc, results);
  const json = regeneratedJson(results);
  const map = regeneratedMap(results);
  const sweepSvgs = [...regeneratedSweepSvgs(results)].filter((e): e is [string, string] => e[1] !== null);
  const stale = (file: string, text: string) => !existsSync(file) || readFileSync(file, 'utf8') !== text;
  if (process.argv.includes('--check')) {
    if (
      next !== doc ||
      stale(CLAIMS_JSON, json) ||
      stale(MAP_JSON, map.json) ||
      stale(MAP_SVG, map.svg) ||
      sweepSvgs.some(([file, svg]) => stale(file, svg))
    ) {
      console.error(
        'docs/RESULTS.md, docs/results/{claims,map}.json, map.svg or a sweep figure differs from docs/results/ (run: npx tsx scripts/claims.ts)',
      );
      process.exit(1);
    }
    console.log('docs/RESULTS.md and docs/results/claims.json: current');
  } else {
    writeFileSync(RESULTS_DOC, next);
    writeFileSync(CLAIMS_JSON, json);
    writeFileSync(MAP_JSON, map.json);
    writeFileSync(MAP_SVG, map.svg);
    for (const [file, svg] of sweepSvgs) writeFileSync(file, svg);
    console.log('docs/RESULTS.md tables, docs/results/claims.json, map.json, map.svg and the sweep figures regenerated');
  }
}
