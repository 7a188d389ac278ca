/**
 * Layering of src/, at two grains: no import cycle between top-level folders (src/engine,
 * src/rl, …) and none between files. Every file's imports (static, type-only, re-exports,
 * dynamic `import()` and worker `new URL('./x', import.meta.url)`) are read with TypeScript's own
 * pre-processor and resolved to source files; a type-only import is an edge like any other, since
 * a file that needs another's types cannot be read without it. Any strongly connected set of two
 * or more folders, or of two or more files, fails the test with the imports that make each edge.
 */
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileGraph, folderEdges, SRC, srcFileGraph } from './lib/import_graph';

/** One line per edge inside each cycle: `a → b  why`. */
function cycleReport(edges: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>, name: (v: string) => string): string {
  const adj = new Map([...edges].map(([a, m]) => [a, [...m.keys()]]));
  return cycles(adj)
    .map((scc) => {
      const lines = [`cycle among ${scc.map(name).join(', ')}:`];
      for (const a of scc)
        for (const b of scc) for (const why of edges.get(a)?.get(b) ?? []) lines.push(`  ${name(a)} → ${name(b)}  ${why}`);
      return lines.join('\n');
    })
    .join('\n');
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

describe('src/ layering', () => {
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

  it('sees a file circle made by a type-only import, and none once that import is gone', () => {
    const files = (pageImports: string) =>
      new Map([
        ['/s/p/page.ts', `${pageImports}\nexport interface Result { n: number }`],
        ['/s/p/drivers.ts', "import type { Result } from './page';\nexport const summary = (): Result => ({ n: 1 });"],
        ['/s/p/run.ts', "const w = new URL('./page.ts', import.meta.url);\nexport const m = () => import('./drivers');"],
      ]);
    const circle = fileGraph(files("import { summary } from './drivers';"));
    expect(circle.unresolved).toEqual([]);
    expect(cycleReport(circle.graph, (f) => f)).toContain('/s/p/drivers.ts → /s/p/page.ts  ./page');
    expect(cycles(new Map([...circle.graph].map(([a, m]) => [a, [...m.keys()]])))).toEqual([['/s/p/drivers.ts', '/s/p/page.ts']]);
    expect(cycleReport(fileGraph(files('')).graph, (f) => f)).toBe('');
  });

  it('reads the imports of every source file (static, type-only, dynamic, re-exports, workers)', () => {
    const edges = folderEdges();
    // Known edges of each kind, so that a parser change that sees nothing fails here.
    expect(edges.get('rl')?.has('reference')).toBe(true);
    expect(edges.get('experiment')?.has('rl')).toBe(true);
    expect(edges.size).toBeGreaterThan(10);
    // Every relative import that points into src/ names a source file (else its edge would be lost).
    const lost = srcFileGraph().unresolved.filter((u) => {
      const [file, spec] = u.split(": '");
      return !relative(SRC, resolve(dirname(file), spec.slice(0, -1))).startsWith('..');
    });
    expect(lost).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    expect(
      cycleReport(folderEdges(), (f) => f),
      'move the shared piece below both folders',
    ).toBe('');
  });

  it('has no import cycle between files (type-only imports included)', () => {
    const edges = new Map(
      [...srcFileGraph().graph].map(([a, m]) => [a, new Map([...m].map(([b, specs]) => [b, specs.map((s) => `'${s}'`)]))]),
    );
    expect(
      cycleReport(edges, (f) => relative(SRC, f)),
      'move the shared type or function to the file that owns it, or below both',
    ).toBe('');
  });
});
