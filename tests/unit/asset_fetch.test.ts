/**
 * src/util/asset_fetch.ts with an in-memory Cache Storage and a scripted server: load-time
 * precaching (stored, absent, unchanged, failed) and cache-first reads.
 */
import { describe, expect, it } from 'vitest';
import { ASSET_CACHE, assetFetch, baseCheckpointUrl, isMissingAsset, precacheAssets, type AssetEnv } from '../../src/util/asset_fetch';
import { memoryCaches } from './lib/memory_caches';

/** A server answering from `files` (missing → Vite's SPA fallback: index.html with 200), counting requests; `down` makes every fetch throw. */
function server(files: Record<string, { body: string; etag: string }>) {
  const log: string[] = [];
  const s = {
    down: false,
    log,
    fetch: async (url: string) => {
      log.push(url);
      if (s.down) throw new TypeError('Failed to fetch');
      const f = files[url];
      if (!f) return new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } });
      return new Response(f.body, { headers: { 'content-type': 'application/octet-stream', etag: f.etag } });
    },
  };
  return s;
}

describe('asset_fetch', () => {
  it('precaches files, remembers absent ones, then serves both from the cache without a request', async () => {
    const mem = memoryCaches();
    const srv = server({ '/tok.json': { body: '{"v":1}', etag: '"a"' } });
    const env: AssetEnv = { caches: mem.caches, fetch: srv.fetch };
    const got = await precacheAssets(['/tok.json', '/base-x.ckpt'], env);
    expect(got).toEqual([
      { url: '/tok.json', status: 'cached', bytes: 7 },
      { url: '/base-x.ckpt', status: 'absent', bytes: 0 },
    ]);
    expect(mem.opened.every((n) => n === ASSET_CACHE)).toBe(true);
    srv.down = true;
    srv.log.length = 0;
    const tok = await assetFetch('/tok.json', env);
    expect(tok.ok).toBe(true);
    expect(await tok.text()).toBe('{"v":1}');
    const ck = await assetFetch('/base-x.ckpt', env);
    expect(ck.status).toBe(404);
    expect(isMissingAsset(ck)).toBe(true);
    expect(srv.log).toEqual([]);
    // Not cached and offline: the network error comes through.
    await expect(assetFetch('/other.json', env)).rejects.toThrow('Failed to fetch');
  });

  it('rewrites a changed file, keeps an unchanged one, and keeps the old copy when the network fails', async () => {
    const mem = memoryCaches();
    const files = { '/tok.json': { body: 'one', etag: '"1"' } };
    const srv = server(files);
    const env: AssetEnv = { caches: mem.caches, fetch: srv.fetch };
    await precacheAssets(['/tok.json'], env);
    files['/tok.json'] = { body: 'two!', etag: '"2"' };
    expect(await precacheAssets(['/tok.json'], env)).toEqual([{ url: '/tok.json', status: 'cached', bytes: 4 }]);
    expect(await (await assetFetch('/tok.json', env)).text()).toBe('two!');
    // Same ETag: reported with the stored length, not rewritten.
    const before = mem.store.get('/tok.json');
    expect(await precacheAssets(['/tok.json'], env)).toEqual([{ url: '/tok.json', status: 'cached', bytes: 4 }]);
    expect(mem.store.get('/tok.json')).toBe(before);
    srv.down = true;
    const failed = await precacheAssets(['/tok.json'], env);
    expect(failed[0]).toMatchObject({ url: '/tok.json', status: 'failed', error: 'Failed to fetch' });
    expect(await (await assetFetch('/tok.json', env)).text()).toBe('two!');
  });

  it('without Cache Storage: precaching does nothing and reads go to the network', async () => {
    const srv = server({ '/tok.json': { body: 'x', etag: '"1"' } });
    const env: AssetEnv = { caches: undefined, fetch: srv.fetch };
    expect(await precacheAssets(['/tok.json'], env)).toEqual([]);
    expect(await (await assetFetch('/tok.json', env)).text()).toBe('x');
    expect(srv.log).toEqual(['/tok.json']);
  });

  it('isMissingAsset: HTTP errors and HTML fallbacks; baseCheckpointUrl validates the preset', () => {
    expect(isMissingAsset(new Response('x', { status: 500 }))).toBe(true);
    expect(isMissingAsset(new Response('<html>', { headers: { 'content-type': 'text/html; charset=utf-8' } }))).toBe(true);
    expect(isMissingAsset(new Response('{}', { headers: { 'content-type': 'application/json' } }))).toBe(false);
    expect(baseCheckpointUrl('mini')).toBe('/base-mini.ckpt');
    expect(() => baseCheckpointUrl('../x')).toThrow("preset must be a lowercase name, got '../x'");
    expect(baseCheckpointUrl('small')).toBe('/base-small.ckpt');
    expect(baseCheckpointUrl('mini', 'broad')).toBe('/base-mini.ckpt');
    expect(baseCheckpointUrl('mini', 'narrow')).toBe('/base-mini-narrow.ckpt');
    expect(baseCheckpointUrl('mini', 'base-only')).toBe('/base-mini-base-only.ckpt');
    expect(() => baseCheckpointUrl('mini', 'Narrow/')).toThrow("exposure must be a lowercase name, got 'Narrow/'");
  });
});
