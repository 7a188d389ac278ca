// Every dependency with an install script is reviewed in package.json `allowScripts`:
// npm ≥ 11 skips unreviewed scripts and prints `npm warn install-scripts` on every `npm ci`.
// A new dependency that brings a script must be allowed or denied there, with the reason in README.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (f: string) => JSON.parse(readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8'));

describe('install scripts', () => {
  it('every package of the lockfile with an install script has an allowScripts entry', () => {
    const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const allow = (read('package.json') as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !(name in allow))).toEqual([]);
  });
});
