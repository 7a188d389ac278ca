/**
 * Same-origin assets the app needs to train (tokenizer, base checkpoints) from the Cache
 * Storage API, so a run started offline makes no network request ("works offline once
 * loaded"). The page fills the cache at load (`precacheAssets`, called by src/app/shell.ts) and
 * every loader — the training worker's runner, `loadTokenizer` — reads through `assetFetch`:
 * cache first, network otherwise. Cache Storage exists in windows and workers on secure origins
 * (https, localhost); elsewhere (Node, plain http) both functions fall back to `fetch`.
 *
 * A file the server does not have is remembered as absent (a stored 404), so the runner's
 * "no base checkpoint → scratch with a warning" also holds offline without asking the network.
 * DOM-free: runs in pages, workers and Node.
 */

/** The Cache Storage cache of the app's assets; bump the version when the stored form changes. */
export const ASSET_CACHE = 'hlab-assets-v1';

/**
 * Where the app serves the pretrained base checkpoint of a model preset and pretraining exposure:
 * /base-<preset>.ckpt for the shipped broad mix (absent or 'broad'), /base-<preset>-<exposure>.ckpt
 * otherwise (public/… on disk; the CLI reads the same path under public/).
 * @param exposure the base's pretraining exposure (spec.model.exposure: 'broad', 'narrow', 'base-only')
 * @throws Error when the preset or exposure is not a lowercase dashed name
 */
export function baseCheckpointUrl(preset: string, exposure?: string): string {
  if (!/^[a-z0-9-]+$/.test(preset)) throw new Error(`baseCheckpointUrl: preset must be a lowercase name, got '${preset}'`);
  if (exposure !== undefined && !/^[a-z0-9-]+$/.test(exposure))
    throw new Error(`baseCheckpointUrl: exposure must be a lowercase name, got '${exposure}'`);
  return exposure === undefined || exposure === 'broad' ? `/base-${preset}.ckpt` : `/base-${preset}-${exposure}.ckpt`;
}

/** What `assetFetch` and `precacheAssets` use; tests pass fakes. */
export interface AssetEnv {
  /** Cache Storage, or undefined where it does not exist (Node, insecure origins). */
  caches: CacheStorage | undefined;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
}

function defaultEnv(): AssetEnv {
  const g = globalThis as { caches?: CacheStorage };
  return { caches: g.caches, fetch: (input, init) => globalThis.fetch(input, init) };
}

/**
 * Whether a response means "the server has no such file": an HTTP error, or an HTML page where a
 * data file was asked for (Vite's dev server and SPA hosts answer unknown paths with index.html).
 */
export function isMissingAsset(res: Response): boolean {
  return !res.ok || (res.headers.get('content-type') ?? '').includes('text/html');
}

/** The stored stand-in of an absent file: a 404 the loaders already treat as "not found". */
function absentResponse(url: string): Response {
  return new Response(null, { status: 404, statusText: 'Not Found (absent when the app loaded)', headers: { 'x-hlab-absent': url } });
}

/**
 * A Cache Storage cache by name, or null when there is no Cache Storage or it is refused (opaque
 * origin, storage disabled): callers then work without a cache.
 */
export async function openNamedCache(caches: CacheStorage | undefined, name: string): Promise<Cache | null> {
  if (!caches) return null;
  try {
    return await caches.open(name);
  } catch {
    return null;
  }
}

const openCache = (env: AssetEnv) => openNamedCache(env.caches, ASSET_CACHE);

/**
 * Fetch an app asset: the copy in the `hlab-assets-v1` cache when there is one (a remembered
 * absence answers 404), else the network (not stored: only `precacheAssets` writes the cache).
 * @param url a same-origin path such as '/tokenizer-v2.json' (or an absolute URL)
 * @returns the Response; callers check `ok` (or `isMissingAsset`) as with `fetch`
 * @throws what `fetch` throws on a network error (offline and not cached)
 */
export async function assetFetch(url: string, env: AssetEnv = defaultEnv()): Promise<Response> {
  const cache = await openCache(env);
  const hit = cache ? await cache.match(url).catch(() => undefined) : undefined;
  return hit ?? env.fetch(url);
}

/** What `precacheAssets` did with one URL. */
interface PrecacheEntry {
  url: string;
  /** 'cached': stored (or already stored unchanged); 'absent': the server has no such file; 'failed': network error, the cache keeps what it had. */
  status: 'cached' | 'absent' | 'failed';
  /** Body bytes stored (cached), else 0. */
  bytes: number;
  /** The error message when 'failed'. */
  error?: string;
}

/** Validators that say two responses carry the same file. */
function sameVersion(a: Response, b: Response): boolean {
  const etag = (r: Response) => r.headers.get('etag');
  const mod = (r: Response) => r.headers.get('last-modified');
  const len = (r: Response) => r.headers.get('content-length');
  if (etag(a) && etag(b)) return etag(a) === etag(b);
  return !!mod(a) && mod(a) === mod(b) && len(a) === len(b);
}

/**
 * Fetch every URL once and store it in the `hlab-assets-v1` cache, one after another (a base
 * checkpoint can be MBs; sequential keeps the page's load light). An unchanged file (same ETag,
 * or same Last-Modified and length) is not rewritten; a missing one is stored as absent; a
 * network error leaves the cached copy in place. Does nothing where Cache Storage is missing.
 * @param urls same-origin paths
 * @returns one entry per URL, in order (empty without Cache Storage)
 */
export async function precacheAssets(urls: readonly string[], env: AssetEnv = defaultEnv()): Promise<PrecacheEntry[]> {
  const cache = await openCache(env);
  if (!cache) return [];
  const out: PrecacheEntry[] = [];
  for (const url of urls) {
    try {
      // 'no-cache': revalidate with the server (a 304 is cheap) so a rebuilt checkpoint is seen.
      const res = await env.fetch(url, { cache: 'no-cache' });
      if (isMissingAsset(res)) {
        await cache.put(url, absentResponse(url));
        out.push({ url, status: 'absent', bytes: 0 });
        continue;
      }
      const old = await cache.match(url);
      if (old && old.ok && sameVersion(old, res)) {
        await res.body?.cancel();
        out.push({ url, status: 'cached', bytes: Number(old.headers.get('content-length') ?? 0) });
        continue;
      }
      const body = await res.arrayBuffer();
      const headers = new Headers(res.headers);
      headers.set('content-length', String(body.byteLength));
      await cache.put(url, new Response(body, { status: res.status, statusText: res.statusText, headers }));
      out.push({ url, status: 'cached', bytes: body.byteLength });
    } catch (e) {
      out.push({ url, status: 'failed', bytes: 0, error: (e as Error).message });
    }
  }
  return out;
}
