/**
 * The committed preset results (docs/results/<preset>/results.json, served to the app's Results
 * view in parts by vite.config.ts `committedResults`): each names a preset, parses with the app's own
 * parser (the schema the CLI writes), was written by a finished run with optimizer updates in
 * every run (black-box SFT included: hlab run trains it through its in-run SFT phase) and
 * carries the spec it ran — the preset's spec apart from its description, so a reader's re-run
 * of `hlab run --preset <name>` is the same experiment.
 */
import { claimsTable } from '../../src/experiment/claims';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResultsFile } from '../../src/app/results_store';
import { upgradeResultsFile } from '../../src/report/results_upgrade';
import { getPreset, PRESET_NAMES } from '../../src/experiment/presets';
import { parseSpec } from '../../src/experiment/spec';

const DIR = resolve(__dirname, '../../docs/results');
const committed = readdirSync(DIR).filter((d) => existsSync(join(DIR, d, 'results.json')));

describe('committed preset results', () => {
  it('at least one preset has committed results', () => {
    expect(committed.length).toBeGreaterThan(0);
  });
  for (const preset of committed) {
    it(`${preset}: a preset, parses, finished with updates in every run, and ran the preset's spec`, () => {
      expect(PRESET_NAMES as readonly string[]).toContain(preset);
      const raw = JSON.parse(readFileSync(join(DIR, preset, 'results.json'), 'utf8'));
      const out = parseResultsFile(raw, `docs/results/${preset}/results.json`);
      // Written in the current shape: the upgrade of older files leaves it as it is.
      expect(JSON.stringify(upgradeResultsFile(raw)) === JSON.stringify(raw)).toBe(true);
      expect(raw.status).toBe('done');
      expect(out.results.runs.length).toBeGreaterThan(0);
      const ran = parseSpec(raw.specJson, 'committed specJson');
      for (const r of out.results.runs) expect(r.optimizerSteps, `${r.method} seed ${r.seed}`).toBeGreaterThan(0);
      const want = getPreset(preset);
      // Results of the design before the epoch sampler and the 24-configuration in-space set are
      // kept until re-run, and the claims table marks them 'old design: re-run needed'; the
      // rest of their spec must still be the preset's.
      // The current design stratifies the in-space set by distance to the base harness (claims.ts, tests/unit/claims.test.ts).
      const inSpace = raw.specJson?.evaluation?.inSpace as { by?: string } | undefined;
      if (inSpace?.by === 'base') expect({ ...ran, description: '' }).toEqual({ ...want, description: '' });
      else {
        expect(
          claimsTable(new Map([[preset, { ...out.results, specJson: raw.specJson }]]))
            .filter((c) => c.spec.preset === preset)
            .every((c) => c.data.includes('old design')),
        ).toBe(true);
        const strip = (s: typeof want) => ({
          ...s,
          description: '',
          methods: [],
          rl: { ...s.rl, trainTasks: 0 },
          evaluation: { ...s.evaluation, inSpace: { mode: 'all' as const } },
        });
        expect({ ...strip(ran), seeds: [] }).toEqual({ ...strip(want), seeds: [] });
      }
    });
  }
});

describe('committed seed chunks (docs/results/<preset>/chunks/sS/)', () => {
  const chunked = readdirSync(DIR).filter((d) => existsSync(join(DIR, d, 'chunks')));
  for (const preset of chunked) {
    it(`${preset}: its README runs the preset's seeds; each chunk is finished or a run folder to resume`, () => {
      const readme = readFileSync(join(DIR, preset, 'README.md'), 'utf8');
      const listed = /--seeds S .*# S = ([0-9, ]+)$/m.exec(readme);
      expect(listed, `${preset}/README.md names S = …`).not.toBeNull();
      expect(listed![1].split(',').map(Number)).toEqual(getPreset(preset).seeds);
      for (const c of readdirSync(join(DIR, preset, 'chunks'))) {
        const files = readdirSync(join(DIR, preset, 'chunks', c)).sort();
        const seed = Number(/^s(\d+)$/.exec(c)?.[1]);
        expect(getPreset(preset).seeds, `${preset}/chunks/${c}`).toContain(seed);
        const spec = parseSpec(JSON.parse(readFileSync(join(DIR, preset, 'chunks', c, 'spec.json'), 'utf8')), c);
        expect(spec.seeds).toEqual([seed]);
        // A finished chunk holds its results; one a session left running holds what `--resume` needs, no results.
        if (files.includes('results.json')) expect(files).not.toContain('checkpoint.hlab');
        else expect(files).toEqual(['checkpoint.hlab', 'run.json', 'spec.json']);
      }
    });
  }
});
