import { defineConfig } from 'vitest/config';
import { createLogger, type HtmlTagDescriptor, type Plugin, type ViteDevServer } from 'vite';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { COMMITTED_DIR, MAP_FILE, splitResults } from './src/app/committed_parts.ts';
import { join, resolve } from 'node:path';

/** The presets with a committed results.json under `dir`, in name order (data-driven: a new folder appears as is). */
function committedPresetNames(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => existsSync(join(dir, d, 'results.json')))
        .sort()
    : [];
}

/**
 * The committed results of the presets, every docs/results/<preset>/results.json, served as
 * separate files under `<base>committed/` (src/app/committed_parts.ts: index.json, then per preset
 * summary, episodes, curves and sample trajectories) that the app fetches when a preset is
 * opened; never bundled into the JS — and docs/results/map.json (the map of conditions) as
 * `<base>committed/map.json`, as it is. The dev server cuts a file when it is first asked for (again
 * after it changes; a new preset's folder is listed at once); `vite build` writes the same files
 * into dist/, so `vite preview` and a static host serve them.
 */
export function committedResults(dir = resolve('docs/results')): Plugin {
  const cut = new Map<string, { stamp: string; files: Map<string, string> }>();
  /** The parts of one preset, cut again when its results.json changed (size or mtime). */
  const partsOf = (preset: string): Map<string, string> => {
    const path = join(dir, preset, 'results.json');
    const st = statSync(path);
    const stamp = `${st.size}-${st.mtimeMs}`;
    const hit = cut.get(preset);
    if (hit?.stamp === stamp) return hit.files;
    const files = splitResults(JSON.parse(readFileSync(path, 'utf8')));
    cut.set(preset, { stamp, files });
    return files;
  };
  const index = () => JSON.stringify({ presets: committedPresetNames(dir) });
  const mapPath = join(dir, MAP_FILE);
  let base = '/';
  return {
    name: 'committed-results',
    configResolved(config) {
      base = config.base;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const prefix = `${base}${COMMITTED_DIR}/`;
        const url = (req.url ?? '').split('?')[0];
        if (!url.startsWith(prefix)) return next();
        const file = decodeURIComponent(url.slice(prefix.length));
        const m = /^([\w.-]+)\/(summary|episodes|curves|trajectories)\.json$/.exec(file);
        let body: string | undefined;
        try {
          if (file === 'index.json') body = index();
          else if (file === MAP_FILE) body = existsSync(mapPath) ? readFileSync(mapPath, 'utf8') : undefined;
          else if (m && !m[1].startsWith('.') && committedPresetNames(dir).includes(m[1])) body = partsOf(m[1]).get(`${m[2]}.json`);
        } catch (e) {
          res.statusCode = 500;
          res.end(`${file}: ${(e as Error).message}`);
          return;
        }
        if (body === undefined) {
          res.statusCode = 404;
          res.end(`no committed results file ${file}`);
          return;
        }
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(body);
      });
    },
    generateBundle() {
      const presets = committedPresetNames(dir);
      this.emitFile({ type: 'asset', fileName: `${COMMITTED_DIR}/index.json`, source: JSON.stringify({ presets }) });
      if (existsSync(mapPath))
        this.emitFile({ type: 'asset', fileName: `${COMMITTED_DIR}/${MAP_FILE}`, source: readFileSync(mapPath, 'utf8') });
      for (const preset of presets) {
        for (const [name, text] of partsOf(preset))
          this.emitFile({ type: 'asset', fileName: `${COMMITTED_DIR}/${preset}/${name}`, source: text });
      }
    },
  };
}

/**
 * Dev server: the pre-bundled dependencies are served without their source maps. Vite inlines a
 * dependency's map into the module it serves, which makes zod's 0.6 MB module 2.3 MB (and
 * tfjs's 2.9 MB module ≈ 20 MB) to send, read and parse on every fresh load, the door's largest
 * request. The app's own modules keep their maps.
 */
function depsWithoutMaps(): Plugin {
  return {
    name: 'deps-without-maps',
    apply: 'serve',
    enforce: 'post',
    transform(code, id) {
      // An empty mapping drops the map (Rollup's convention; Vite then sends none).
      if (/[\\/]deps[\\/][^\\/]+\.js(\?|$)/.test(id) && id.includes(this.environment.config.cacheDir))
        return { code, map: { mappings: '' } };
      return null;
    },
  };
}

/** Static import specifiers of a served module (`import … from "x"`, `import "x"`, `export … from "x"`). */
const STATIC_IMPORT = /^\s*(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']/gm;

/**
 * Dev server: index.html names the first view's modules — the static imports of `entries`, all
 * the way down, as the server serves them — as `<link rel="modulepreload">`. Without it the browser
 * learns a module's imports only once it has that module, so the door's ~90 modules arrive in ~12
 * rounds of requests, each waiting on the one before (and on the dependency bundles, zod's the
 * largest, found late); with it they are all asked for at once. The list is read from the
 * server's transformed modules (cached: `server.warmup` transforms them at start) and read again
 * after a file changes; until it is ready (a load while the server starts) the page gets none.
 * The production build does the same by itself (Vite's modulepreload of a chunk's imports).
 */
function firstViewPreload(entries: readonly string[], waitMs = 1500): Plugin {
  let server: ViteDevServer | undefined;
  let urls: Promise<string[]> | null = null;
  // Breadth first from the entries: the modules the page asks for first come first.
  const collect = async (s: ViteDevServer): Promise<string[]> => {
    const seen = new Set<string>(entries);
    let level = [...entries];
    while (level.length) {
      const codes = await Promise.all(
        level.map((url) =>
          s.transformRequest(url).then(
            (r) => r?.code ?? '',
            () => '',
          ),
        ),
      );
      const next: string[] = [];
      codes.forEach((code, i) => {
        for (const m of code.matchAll(STATIC_IMPORT)) {
          if (!m[1].startsWith('/') && !m[1].startsWith('.')) continue;
          const u = new URL(m[1], `http://x${level[i]}`);
          const url = u.pathname + u.search;
          if (!seen.has(url)) seen.add(url), next.push(url);
        }
      });
      level = next;
    }
    return [...seen].filter((u) => u !== '/@vite/client');
  };
  return {
    name: 'first-view-preload',
    apply: 'serve',
    configureServer(s) {
      server = s;
      s.watcher.on('all', () => {
        urls = null;
      });
    },
    transformIndexHtml: {
      order: 'post',
      async handler(_html, ctx): Promise<HtmlTagDescriptor[]> {
        // The app's page only (not the test pages the same server serves).
        if (!server || ctx.path !== '/index.html') return [];
        urls ??= collect(server);
        const list = await Promise.race([urls, new Promise<string[]>((resolve) => setTimeout(() => resolve([]), waitMs))]);
        return list.map((href) => ({ tag: 'link', attrs: { rel: 'modulepreload', href }, injectTo: 'head' }));
      },
    },
  };
}

// The presets (public/presets/*.json) are imported on purpose by src/experiment/presets.ts
// (embedded, validated at load) and are public assets of the app too; Vite warns about each such
// import on every page load ("Assets in public directory cannot be imported from JavaScript"),
// ~190 lines per test run. Drop exactly that warning for exactly those files; every other
// message passes.
export function quietPresetImports(logger = createLogger()) {
  const warn = logger.warn.bind(logger);
  logger.warn = (msg, opts) => {
    if (msg.includes('Assets in public directory cannot be imported from JavaScript') && /\/public\/presets\/[\w-]+\.json/.test(msg))
      return;
    warn(msg, opts);
  };
  return logger;
}

// Cross-origin isolation: pages get SharedArrayBuffer (the CPU engine's shared memory, its
// threaded workers) and a fine-grained performance.now().
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  customLogger: quietPresetImports(),
  plugins: [committedResults(), depsWithoutMaps(), firstViewPreload(['/src/app/main.ts', '/src/app/views/train.ts'])],
  // Transform the app's module graph at server start, not on the first page load.
  server: { headers: isolation, strictPort: true, warmup: { clientFiles: ['./src/app/main.ts', './src/app/views/train.ts'] } },
  preview: { headers: isolation },
  worker: { format: 'es' },
  // Pre-bundle every browser dependency at server start. Otherwise Vite discovers one the first
  // time a test page imports it, re-optimizes and reloads the page in the middle of a test
  // ("Execution context was destroyed") — on a fresh clone, where node_modules/.vite is empty.
  optimizeDeps: {
    include: [
      'comlink',
      'idb',
      'lit-html',
      'lit-html/directives/live.js',
      'uplot',
      'zod',
      '@tensorflow/tfjs',
      '@tensorflow/tfjs-backend-wasm',
      '@tensorflow/tfjs-backend-webgpu',
    ],
  },
  build: { target: 'es2022' },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    globalSetup: ['tests/setup/build_wasm.ts'],
    environment: 'node',
    // 2-core CI machines: keep the pool small so browser tests started after us are not starved.
    maxWorkers: 2,
    testTimeout: 60_000,
    // A passing test's console output (measurements) is not printed; a failing test's is.
    silent: 'passed-only',
  },
});
