// A clean test run prints only what matters: Vite's warning about the intentionally imported
// public/presets/*.json is dropped (and nothing else), browser specs attach measurements as
// annotations (fixtures.ts `note`) instead of printing raw JSON lines.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import type { Logger } from 'vite';
import { quietPresetImports } from '../../vite.config';

const PUBLIC_WARNING = (path: string) =>
  `Assets in public directory cannot be imported from JavaScript.\nIf you intend to import that asset, put the file in the src directory, and use /src/${path} instead of /public/${path}.`;

describe('test output', () => {
  it("drops exactly Vite's public-import warning for the presets", () => {
    const seen: string[] = [];
    const fake = { warn: (m: string) => seen.push(m) } as unknown as Logger;
    const logger = quietPresetImports(fake);
    logger.warn(PUBLIC_WARNING('presets/quick.json'));
    logger.warn(PUBLIC_WARNING('presets/main.json'));
    logger.warn(PUBLIC_WARNING('base-mini.ckpt.json'));
    logger.warn('some other warning');
    expect(seen).toEqual([PUBLIC_WARNING('base-mini.ckpt.json'), 'some other warning']);
  });

  it('browser specs do not print raw lines (measurements go to annotations)', () => {
    const dir = new URL('../browser/', import.meta.url);
    // app_*.spec.ts belong to the app's owner.
    const specs = readdirSync(dir).filter((f) => f.endsWith('.spec.ts') && !f.startsWith('app_'));
    expect(specs.length).toBeGreaterThan(10);
    const printing = specs.filter((f) => /console\.(log|info)\(/.test(readFileSync(new URL(f, dir), 'utf8')));
    expect(printing).toEqual([]);
  });
});
