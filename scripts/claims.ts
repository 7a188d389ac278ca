/**
 * Regenerate docs/RESULTS.md's generated tables (claims, in-space breakdown, schedule coverage,
 * the map of conditions), docs/results/claims.json and docs/results/map.json (the app's copies)
 * and docs/results/map.svg from docs/results/<preset>/results.json (src/experiment/claims.ts,
 * conditions_map.ts), or check that they are current.
 *
 *   npx tsx scripts/claims.ts           # rewrite the blocks between the markers
 *   npx tsx scripts/claims.ts --check   # exit 1 when RESULTS.md differs from the data
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLAIMS, claimsJson, claimsTable, generatedBlocks, withBlocks, type CommittedResults } from '../src/experiment/claims';
import { ExperimentResultsSchema } from '../src/report/results_schema';
import { upgradeRuns } from '../src/report/results_upgrade';
import { conditionsMap, mapMarkdown } from '../src/experiment/conditions_map';
import { conditionsMapSvg } from '../src/experiment/conditions_map_svg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_DOC = `${ROOT}docs/RESULTS.md`;
/** The claims table for the app's Results view. */
export const CLAIMS_JSON = `${ROOT}docs/results/claims.json`;
/** The map of conditions for the app's Results view, and as a figure. */
export const MAP_JSON = `${ROOT}docs/results/map.json`;
export const MAP_SVG = `${ROOT}docs/results/map.svg`;

/** The committed results of every preset a claim reads and of every map preset (`map-*`; absent presets left out), validated. */
export function loadCommitted(dir = `${ROOT}docs/results`): Map<string, CommittedResults> {
  const out = new Map<string, CommittedResults>();
  const mapPresets = existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => d.startsWith('map-'))
        .sort()
    : [];
  for (const preset of [...new Set([...CLAIMS.map((c) => c.preset), ...mapPresets])]) {
    const file = `${dir}/${preset}/results.json`;
    if (!existsSync(file)) continue;
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const res = ExperimentResultsSchema.parse({ ...raw, runs: upgradeRuns(raw.runs, raw.curves) }) as unknown as CommittedResults;
    out.set(preset, { ...res, specJson: raw.specJson });
  }
  return out;
}

/** RESULTS.md as the data says it should read. */
export function regenerated(doc = readFileSync(RESULTS_DOC, 'utf8'), results = loadCommitted()): string {
  return withBlocks(doc, { ...generatedBlocks(results), map: mapMarkdown(conditionsMap(results)) });
}

/** docs/results/map.json and map.svg as the data says they should read. */
export function regeneratedMap(results = loadCommitted()): { json: string; svg: string } {
  const cells = conditionsMap(results);
  return { json: `${JSON.stringify({ generatedBy: 'scripts/claims.ts', cells }, null, 2)}\n`, svg: conditionsMapSvg(cells) };
}

/** docs/results/claims.json as the data says it should read. */
export function regeneratedJson(results = loadCommitted()): string {
  return `${JSON.stringify(claimsJson(claimsTable(results)), null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = loadCommitted();
  const doc = readFileSync(RESULTS_DOC, 'utf8');
  const next = regenerated(doc, results);
  const json = regeneratedJson(results);
  const map = regeneratedMap(results);
  const stale = (file: string, text: string) => !existsSync(file) || readFileSync(file, 'utf8') !== text;
  if (process.argv.includes('--check')) {
    if (next !== doc || stale(CLAIMS_JSON, json) || stale(MAP_JSON, map.json) || stale(MAP_SVG, map.svg)) {
      console.error(
        'docs/RESULTS.md or docs/results/{claims,map}.json or map.svg differs from docs/results/ (run: npx tsx scripts/claims.ts)',
      );
      process.exit(1);
    }
    console.log('docs/RESULTS.md and docs/results/claims.json: current');
  } else {
    writeFileSync(RESULTS_DOC, next);
    writeFileSync(CLAIMS_JSON, json);
    writeFileSync(MAP_JSON, map.json);
    writeFileSync(MAP_SVG, map.svg);
    console.log('docs/RESULTS.md tables, docs/results/claims.json, map.json and map.svg regenerated');
  }
}
