/**
 * Regenerate docs/RESULTS.md's generated tables (claims, in-space breakdown, schedule coverage)
 * and docs/results/claims.json (the app's copy) from docs/results/<preset>/results.json
 * (src/experiment/claims.ts), or check that they are current.
 *
 *   npx tsx scripts/claims.ts           # rewrite the blocks between the markers
 *   npx tsx scripts/claims.ts --check   # exit 1 when RESULTS.md differs from the data
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLAIMS, claimsJson, claimsTable, generatedBlocks, withBlocks, type CommittedResults } from '../src/experiment/claims';
import { ExperimentResultsSchema, upgradeRuns } from '../src/experiment/results_file';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_DOC = `${ROOT}docs/RESULTS.md`;
/** The claims table for the app's Results view. */
export const CLAIMS_JSON = `${ROOT}docs/results/claims.json`;

/** The committed results of every preset a claim reads (absent presets left out), validated. */
export function loadCommitted(dir = `${ROOT}docs/results`): Map<string, CommittedResults> {
  const out = new Map<string, CommittedResults>();
  for (const preset of [...new Set(CLAIMS.map((c) => c.preset))]) {
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
  return withBlocks(doc, generatedBlocks(results));
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
  if (process.argv.includes('--check')) {
    if (next !== doc || !existsSync(CLAIMS_JSON) || readFileSync(CLAIMS_JSON, 'utf8') !== json) {
      console.error('docs/RESULTS.md or docs/results/claims.json differs from docs/results/ (run: npx tsx scripts/claims.ts)');
      process.exit(1);
    }
    console.log('docs/RESULTS.md and docs/results/claims.json: current');
  } else {
    writeFileSync(RESULTS_DOC, next);
    writeFileSync(CLAIMS_JSON, json);
    console.log('docs/RESULTS.md tables and docs/results/claims.json regenerated');
  }
}
