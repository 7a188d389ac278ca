/**
 * Which exports no other file uses (tests/unit/dead_exports.test.ts): a syntactic scan of every
 * file with the TypeScript parser (no type checker, so the whole repository takes about a second).
 *
 * An export (`export function/class/interface/type/enum/const/let/var`, `export default`,
 * `export { a as b }`, or a re-export `export { x } from` / `export * as ns from`) is used when
 * another file names it through
 *   - a named or default import (`import { x }`, `import type { X }`, `import d from`);
 *   - a namespace import, by the members read off it (`ns.x`, `ns.X` in a type); a namespace
 *     used any other way (passed on, spread) uses every export of the module;
 *   - a re-export that is itself used: `export { x } from './m'` passes a use of the barrel's x on
 *     to m's x, and `export * from './m'` passes on any name the barrel does not declare itself;
 *   - a dynamic `import('./m')`, by the names read off its result (`(await import(m)).x`,
 *     `const { x } = await import(m)`, `.then(({ x }) => …)`), otherwise every export;
 *   - an import type `import('./m').X` (`typeof import('./m')` alone: every export);
 *   - `import.meta.glob('./dir/*.ts')`: every export of every matching module;
 *   - a string naming a module file (`'/src/x.ts'`, `'./worker.ts'`: page entries loaded by
 *     name, Worker URLs): the export named by the next argument when it is a string literal
 *     (`hlabRun('/src/engine/webgpu/device.ts', 'gpuErrorsOfRealm')`), otherwise every export;
 *   - an HTML `src="/src/x.ts"`: every export.
 * Uses inside the exporting file itself do not count. Module specifiers are resolved like Vite's
 * bundler resolution: relative or root-absolute ('/src/…'), with or without the .ts extension,
 * '.js' standing for '.ts', a '?query' suffix dropped; bare (package) specifiers are ignored.
 */
import { dirname, join, normalize } from 'node:path/posix';
import ts from 'typescript';

/** A use of `name` ('*': every export) of the module at `module` (repository-relative path). */
interface Use {
  module: string;
  name: string;
}

/** An export of a file: its own declaration, or a re-export of `name` of `from` ('*': the module as a namespace). */
type ExportOrigin = { kind: 'own' } | { kind: 'reexport'; from: string; name: string };

/** What one file exports and which exports of other files it uses. */
interface FileFacts {
  exports: Map<string, ExportOrigin>;
  /** Modules re-exported with `export * from`. */
  stars: string[];
  uses: Use[];
}

const SOURCE_EXT = /\.(ts|mts|mjs|js)$/;

/** The repository path a specifier in `from` names, or null (a package, or no such file). */
function resolveSpecifier(spec: string, from: string, files: ReadonlyMap<string, string>): string | null {
  const bare = spec.replace(/\?.*$/, '');
  let base: string;
  if (bare.startsWith('./') || bare.startsWith('../')) base = normalize(join(dirname(from), bare));
  else if (bare.startsWith('/')) base = bare.slice(1);
  else return null;
  const candidates = [base, `${base}.ts`, `${base}.mjs`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => files.has(c)) ?? null;
}

/** Every repository path a Vite glob pattern (relative to `from`, `*` within one folder) matches. */
function globMatches(pattern: string, from: string, files: ReadonlyMap<string, string>): string[] {
  const abs = pattern.startsWith('/') ? pattern.slice(1) : normalize(join(dirname(from), pattern));
  const re = new RegExp(
    `^${abs
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '(?:.*/)?')
      .replace(/\*/g, '[^/]*')}$`,
  );
  return [...files.keys()].filter((p) => re.test(p));
}

const hasExportModifier = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefaultModifier = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** Names bound by a variable declaration's name (plain or destructured). */
function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** The property names an object binding pattern reads (`{ a, b: c }` → a, b); null when it has a rest element. */
function patternNames(p: ts.ObjectBindingPattern): string[] | null {
  if (p.elements.some((e) => e.dotDotDotToken)) return null;
  return p.elements.map((e) => (e.propertyName ?? e.name).getText());
}

/** The names read off a dynamic import's result, or null when the whole module escapes. */
function dynamicImportNames(call: ts.CallExpression): string[] | null {
  let n: ts.Node = call;
  if (ts.isAwaitExpression(n.parent)) n = n.parent;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isPropertyAccessExpression(p) && p.expression === n) {
    if (n === call && p.name.text === 'then' && ts.isCallExpression(p.parent)) {
      const cb = p.parent.arguments[0];
      const param = cb && (ts.isArrowFunction(cb) || ts.isFunctionExpression(cb)) ? cb.parameters[0] : undefined;
      return param && ts.isObjectBindingPattern(param.name) ? patternNames(param.name) : null;
    }
    return n === call ? null : [p.name.text];
  }
  if (ts.isVariableDeclaration(p) && p.initializer === n && ts.isObjectBindingPattern(p.name)) return patternNames(p.name);
  return null;
}

/** The members read off namespace import `ns` in `sf`, or null when the namespace is used as a value. */
function namespaceMembers(sf: ts.SourceFile, ns: ts.Identifier): string[] | null {
  const names: string[] = [];
  let whole = false;
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node !== ns && node.text === ns.text) {
      const p = node.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === node) names.push(p.name.text);
      else if (ts.isQualifiedName(p) && p.left === node) names.push(p.right.text);
      else if (!(ts.isPropertyAccessExpression(p) && p.name === node) && !(ts.isPropertyAssignment(p) && p.name === node)) whole = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return whole ? null : names;
}

/** The exports and uses of one TypeScript / JavaScript file. */
function scanSource(path: string, text: string, files: ReadonlyMap<string, string>): FileFacts {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const facts: FileFacts = { exports: new Map(), stars: [], uses: [] };
  const resolve = (spec: string) => resolveSpecifier(spec, path, files);
  const use = (module: string | null, names: readonly string[] | null) => {
    if (module) for (const name of names ?? ['*']) facts.uses.push({ module, name });
  };
  /** Local names bound by imports: `export { a }` of one of them is a re-export. */
  const imported = new Map<string, { from: string; name: string }>();
  const specifierNodes = new Set<ts.Node>();

  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      specifierNodes.add(st.moduleSpecifier);
      const m = resolve(st.moduleSpecifier.text);
      const clause = st.importClause;
      if (!m || !clause) continue;
      if (clause.name) {
        use(m, ['default']);
        imported.set(clause.name.text, { from: m, name: 'default' });
      }
      const nb = clause.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) use(m, namespaceMembers(sf, nb.name));
      if (nb && ts.isNamedImports(nb))
        for (const el of nb.elements) {
          const name = (el.propertyName ?? el.name).getText(sf);
          use(m, [name]);
          imported.set(el.name.text, { from: m, name });
        }
    } else if (ts.isExportDeclaration(st)) {
      const spec = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier : undefined;
      if (spec) specifierNodes.add(spec);
      const m = spec ? resolve(spec.text) : null;
      if (spec && !st.exportClause) {
        if (m) facts.stars.push(m);
      } else if (st.exportClause && ts.isNamespaceExport(st.exportClause)) {
        if (m) facts.exports.set(st.exportClause.name.getText(sf), { kind: 'reexport', from: m, name: '*' });
      } else if (st.exportClause) {
        for (const el of st.exportClause.elements) {
          const local = (el.propertyName ?? el.name).getText(sf);
          const origin: ExportOrigin | undefined = spec
            ? m
              ? { kind: 'reexport', from: m, name: local }
              : undefined
            : imported.has(local)
              ? { kind: 'reexport', ...imported.get(local)! }
              : { kind: 'own' };
          if (origin) facts.exports.set(el.name.getText(sf), origin);
        }
      }
    } else if (ts.isExportAssignment(st)) {
      facts.exports.set('default', { kind: 'own' });
    } else if (hasExportModifier(st) && !sf.isDeclarationFile) {
      if (hasDefaultModifier(st)) facts.exports.set('default', { kind: 'own' });
      else if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations) for (const n of bindingNames(d.name)) facts.exports.set(n, { kind: 'own' });
      else {
        const name = (st as ts.DeclarationStatement).name;
        if (name) facts.exports.set(name.getText(sf), { kind: 'own' });
      }
    }
  }

  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) {
        specifierNodes.add(arg);
        use(resolve(arg.text), dynamicImportNames(node));
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifierNodes.add(node.argument.literal);
      let q = node.qualifier;
      while (q && ts.isQualifiedName(q)) q = q.left;
      use(resolve(node.argument.literal.text), q ? [q.text] : null);
    } else if (ts.isCallExpression(node) && node.expression.getText(sf) === 'import.meta.glob') {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) {
        specifierNodes.add(arg);
        for (const m of globMatches(arg.text, path, files)) use(m, null);
      }
    } else if (ts.isStringLiteralLike(node) && !specifierNodes.has(node) && SOURCE_EXT.test(node.text.replace(/\?.*$/, ''))) {
      const m = resolve(node.text);
      if (m) {
        // hlabRun(path, 'name') / s.run(path, 'name'): the export the next argument names.
        const p = node.parent;
        const next = ts.isCallExpression(p) ? p.arguments[p.arguments.indexOf(node as ts.Expression) + 1] : undefined;
        use(m, next && ts.isStringLiteralLike(next) ? [next.text] : null);
      }
    }
    ts.forEachChild(node, visit);
  };
  // Statements first (they register their specifiers), then every expression below them.
  ts.forEachChild(sf, visit);
  return facts;
}

/** The uses of an HTML file: every `src="…"` naming a module file uses all its exports. */
function scanHtml(path: string, text: string, files: ReadonlyMap<string, string>): FileFacts {
  const uses: Use[] = [];
  for (const m of text.matchAll(/\bsrc="([^"]+)"/g)) {
    const module = resolveSpecifier(m[1], path, files);
    if (module) uses.push({ module, name: '*' });
  }
  return { exports: new Map(), stars: [], uses };
}

/**
 * Every export of a checked file that no other file uses, as 'path:name', sorted.
 * @param files every file that may use an export (repository-relative posix path → text):
 *   .ts/.mjs/.js sources and .html pages
 * @param checked whether a file's own exports are checked (the others only count as users)
 * @param counts whether a use by file `user` of an export of `module` counts (default: every use);
 *   asked of the module the use reaches at each step of a re-export chain
 */
export function unusedExports(
  files: ReadonlyMap<string, string>,
  checked: (path: string) => boolean,
  counts: (user: string, module: string) => boolean = () => true,
): string[] {
  const facts = new Map<string, FileFacts>();
  for (const [path, text] of files) facts.set(path, path.endsWith('.html') ? scanHtml(path, text, files) : scanSource(path, text, files));

  const used = new Set<string>();
  for (const [user, f] of facts) {
    // Followed per user: whether a use counts depends on who uses it.
    const seen = new Set<string>();
    /** Mark (module, name) used, following re-exports to the declaring module. */
    const mark = (module: string, name: string) => {
      const m = facts.get(module);
      const key = `${module}:${name}`;
      if (!m || seen.has(key)) return;
      seen.add(key);
      if (name === '*') {
        for (const [n] of m.exports) mark(module, n);
        for (const s of m.stars) mark(s, '*');
        return;
      }
      const origin = m.exports.get(name);
      if (origin) {
        if (counts(user, module)) used.add(key);
        if (origin.kind === 'reexport') mark(origin.from, origin.name);
      } else for (const s of m.stars) mark(s, name);
    };
    for (const u of f.uses) if (u.module !== user) mark(u.module, u.name);
  }

  const out: string[] = [];
  for (const [path, f] of facts) {
    if (!checked(path)) continue;
    for (const [name] of f.exports) if (!used.has(`${path}:${name}`)) out.push(`${path}:${name}`);
  }
  return out.sort();
}
