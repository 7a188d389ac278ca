/**
 * Folder layering of src/: no import cycle between top-level folders (src/kernels, src/rl, …).
 * Every file's imports (static, type-only, re-exports, dynamic `import()` and worker
 * `new URL('./x', import.meta.url)`) are read with TypeScript's own pre-processor; an import from
 * one folder into another is an edge, and any strongly connected set of two or more folders fails
 * the test with the files that make each edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (relative(SRC, p) !== join('wasm', 'as')) out.push(...sourceFiles(p)); // AssemblyScript, its own world
    } else if (/\.(ts|mts|mjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Relative specifiers a file imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url/g)) specs.push(m[1]);
  return specs.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** Folder of a path under src/ (its first segment), or null for a file directly in src/ or outside it. */
function folderOf(path: string): string | null {
  const rel = relative(SRC, path);
  if (rel.startsWith('..') || !rel.includes(sep)) return null;
  return rel.split(sep)[0];
}

/** Folder → folder edges, each with the `file: specifier` imports behind it. */
function folderEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const spec of importsOf(file)) {
      const to = folderOf(resolve(dirname(file), spec));
      if (to === null || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const why = edges.get(from)!;
      why.set(to, [...(why.get(to) ?? []), `${relative(SRC, file)}: '${spec}'`]);
    }
  }
  return edges;
}

/** Strongly connected components of size ≥ 2 (Tarjan), each sorted. */
function cycles(adj: ReadonlyMap<string, Iterable<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of adj.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('src/ folder layering', () => {
  it('finds a cycle in a graph that has one, and none in a layered one', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      cycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the imports of every source file (static, type-only, dynamic, re-exports)', () => {
    const edges = folderEdges();
    // Known edges of each kind, so that a parser change that sees nothing fails here.
    expect(edges.get('rl')?.has('kernels')).toBe(true);
    expect(edges.get('experiment')?.has('rl')).toBe(true);
    expect(edges.size).toBeGreaterThan(10);
  });

  it('has no import cycle between folders', () => {
    const edges = folderEdges();
    const adj = new Map([...edges].map(([a, m]) => [a, [...m.keys()]]));
    const report = cycles(adj).map((scc) => {
      const lines = [`cycle among ${scc.join(', ')}:`];
      for (const a of scc) for (const b of scc) for (const why of edges.get(a)?.get(b) ?? []) lines.push(`  ${a} → ${b}  ${why}`);
      return lines.join('\n');
    });
    expect(report.join('\n'), 'move the shared piece below both folders').toBe('');
  });
});
