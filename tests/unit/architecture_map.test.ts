/**
 * docs/ARCHITECTURE.md's "Which folder imports which" table is the structure map a newcomer reads
 * first; this test holds it against the code. Every top-level folder of src/ has exactly one row,
 * and the folders a row lists are exactly the folders its files import (tests/unit/lib/import_graph.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderEdges, SRC } from './lib/import_graph';

const DOC = join(__dirname, '..', '..', 'docs', 'ARCHITECTURE.md');

/**
 * The table under "Which folder imports which" as folder → documented imports. A row's first
 * cell names one or more folders ("design, storage"); its second is "—", a list ("a, b and c")
 * or "every folder but a, b and c" (all of `folders` except those and the row's own).
 * @throws Error when the table is missing or a folder has two rows
 */
function documentedImports(markdown: string, folders: readonly string[]): Map<string, Set<string>> {
  const at = markdown.indexOf('Which folder imports which');
  if (at < 0) throw new Error('ARCHITECTURE.md has no "Which folder imports which" table');
  const lines = markdown.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const stop = lines.findIndex((l, n) => n > first && !l.startsWith('|'));
  const rows = lines.slice(first, stop < 0 ? undefined : stop);
  const list = (cell: string) =>
    cell
      .split(/,| and /)
      .map((x) => x.trim())
      .filter((x) => x && x !== '—');
  const out = new Map<string, Set<string>>();
  for (const row of rows) {
    const [, who, what] = row.split('|').map((c) => c.trim());
    if (who === 'folder' || /^-+$/.test(who)) continue;
    const but = what.match(/^every folder but (.*)$/);
    for (const f of list(who)) {
      if (out.has(f)) throw new Error(`ARCHITECTURE.md names folder '${f}' in two rows`);
      const imports = but ? folders.filter((x) => x !== f && !list(but[1]).includes(x)) : list(what);
      out.set(f, new Set(imports));
    }
  }
  return out;
}

/** Lines naming each difference between the documented and the actual imports (empty when they agree). */
function mapDifferences(
  documented: ReadonlyMap<string, ReadonlySet<string>>,
  actual: ReadonlyMap<string, ReadonlySet<string>>,
  folders: readonly string[],
): string[] {
  const out: string[] = [];
  for (const f of folders) {
    const doc = documented.get(f);
    if (!doc) {
      out.push(`${f}: no row in the table`);
      continue;
    }
    const real = actual.get(f) ?? new Set<string>();
    const missing = [...real].filter((x) => !doc.has(x)).sort();
    const extra = [...doc].filter((x) => !real.has(x)).sort();
    if (missing.length) out.push(`${f}: imports ${missing.join(', ')} but the table does not say so`);
    if (extra.length) out.push(`${f}: the table says it imports ${extra.join(', ')}, the code does not`);
  }
  for (const f of documented.keys()) if (!folders.includes(f)) out.push(`${f}: a row for a folder src/ does not have`);
  return out;
}

const FOLDERS = readdirSync(SRC, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('the structure map in docs/ARCHITECTURE.md', () => {
  it('reads lists, "—" and "every folder but", and reports each kind of difference', () => {
    const md = [
      'Which folder imports which, today:',
      '',
      '| folder | imports from |',
      '|---|---|',
      '| a, b | — |',
      '| c | a and b |',
      '| d | every folder but b |',
      '',
      '| later | table |',
    ].join('\n');
    const folders = ['a', 'b', 'c', 'd'];
    const doc = documentedImports(md, folders);
    expect([...doc.keys()]).toEqual(['a', 'b', 'c', 'd']);
    expect([...doc.get('c')!]).toEqual(['a', 'b']);
    expect([...doc.get('d')!].sort()).toEqual(['a', 'c']);
    const actual = new Map([
      ['c', new Set(['a', 'b'])],
      ['d', new Set(['a', 'c'])],
    ]);
    expect(mapDifferences(doc, actual, folders)).toEqual([]);
    actual.get('c')!.add('d');
    actual.get('d')!.delete('c');
    expect(mapDifferences(doc, actual, [...folders, 'e'])).toEqual([
      'c: imports d but the table does not say so',
      'd: the table says it imports c, the code does not',
      'e: no row in the table',
    ]);
    expect(() => documentedImports(`${md}\n| a | — |`.replace('\n\n| later', '\n| later'), folders)).toThrow(/two rows/);
  });

  it('matches the folders each folder of src/ imports', () => {
    const actual = new Map([...folderEdges()].map(([f, m]) => [f, new Set(m.keys())]));
    const doc = documentedImports(readFileSync(DOC, 'utf8'), FOLDERS);
    expect(mapDifferences(doc, actual, FOLDERS), 'update the table in docs/ARCHITECTURE.md').toEqual([]);
  });
});
