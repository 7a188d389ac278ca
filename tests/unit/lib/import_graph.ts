/**
 * src/'s import graph as the layering tests read it: every file's imports (static, type-only,
 * re-exports, dynamic `import()` and worker `new URL('./x', import.meta.url)`; `import.meta.glob`
 * patterns are listed by relativeImports but make no edge) read with
 * TypeScript's own pre-processor and resolved to source files (bundler resolution), and the
 * folder → folder edges they make (a folder is a path's first segment under src/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const SRC = resolve(__dirname, '../../../src');

/** Source files under `dir` (src/ by default), leaving out the AssemblyScript kernels (their own world). */
export function sourceFiles(dir = SRC): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (relative(SRC, p) !== join('engine', 'wasm', 'as')) out.push(...sourceFiles(p)); // AssemblyScript, its own world
    } else if (/\.(ts|mts|mjs|js)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** One relative import of a file: its specifier, 1-based line, and whether it is an `import.meta.glob` pattern. */
export interface RelativeImport {
  spec: string;
  line: number;
  glob: boolean;
}

/** Relative specifiers `text` imports: static, type-only, re-exports, dynamic, `import.meta.glob` patterns, worker URLs. */
export function relativeImports(text: string): RelativeImport[] {
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
  const out = ts.preProcessFile(text, true, true).importedFiles.map((f) => ({ spec: f.fileName, line: lineOf(f.pos), glob: false }));
  for (const m of text.matchAll(/import\.meta\.glob\s*(?:<[^(]*>)?\(\s*(\[[^\]]*\]|['"][^'"]+['"])/g))
    for (const g of m[1].matchAll(/['"]!?([^'"]+)['"]/g)) out.push({ spec: g[1], line: lineOf(m.index ?? 0), glob: true });
  for (const m of text.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g))
    out.push({ spec: m[1], line: lineOf(m.index ?? 0), glob: false });
  return out.filter((x) => x.spec.startsWith('./') || x.spec.startsWith('../'));
}

/** The file of `files` that `spec`, imported by `from`, names (bundler resolution), or null. */
function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.mts`, `${base}.js`, `${base}.mjs`, join(base, 'index.ts')]) if (files.has(c)) return c;
  return null;
}

/** Imports of assets, not code: stylesheets, JSON, shaders, anything with a `?query`. */
const ASSET = /\.(css|json|wgsl|html|svg)$|\?/;

/** An import graph: file → imported file → the specifiers behind the edge. */
export type FileGraph = Map<string, Map<string, string[]>>;

/**
 * The import graph of `texts` (absolute path → source text). Asset imports are skipped; code
 * imports that name no file of `texts` are returned in `unresolved` as `file: spec`.
 */
export function fileGraph(texts: ReadonlyMap<string, string>): { graph: FileGraph; unresolved: string[] } {
  const files = new Set(texts.keys());
  const graph: FileGraph = new Map();
  const unresolved: string[] = [];
  for (const [file, text] of texts) {
    const out = new Map<string, string[]>();
    graph.set(file, out);
    for (const { spec, glob } of relativeImports(text)) {
      if (glob || ASSET.test(spec)) continue;
      const to = resolveImport(file, spec, files);
      if (to === null) unresolved.push(`${file}: '${spec}'`);
      else if (to !== file) out.set(to, [...(out.get(to) ?? []), spec]);
    }
  }
  return { graph, unresolved };
}

/** src/'s import graph, read once. */
let srcGraph: ReturnType<typeof fileGraph> | undefined;
export function srcFileGraph(): ReturnType<typeof fileGraph> {
  srcGraph ??= fileGraph(new Map(sourceFiles(SRC).map((f) => [f, readFileSync(f, 'utf8')])));
  return srcGraph;
}

/** Folder of a path under src/ (its first segment), or null for a file directly in src/ or outside it. */
function folderOf(path: string): string | null {
  const rel = relative(SRC, path);
  if (rel.startsWith('..') || !rel.includes(sep)) return null;
  return rel.split(sep)[0];
}

/** Folder → folder edges, each with the `file: specifier` imports behind it. */
export function folderEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const [file, imports] of srcFileGraph().graph) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const [target, specs] of imports) {
      const to = folderOf(target);
      if (to === null || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const why = edges.get(from)!;
      why.set(to, [...(why.get(to) ?? []), ...specs.map((spec) => `${relative(SRC, file)}: '${spec}'`)]);
    }
  }
  return edges;
}
