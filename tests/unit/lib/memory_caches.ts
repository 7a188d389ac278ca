/**
 * A Cache Storage keeping Responses in a Map keyed by the URL string: enough for the modules that
 * precache and read app assets (src/util/asset_fetch.ts, src/app/committed_fetch.ts).
 * @returns the Cache Storage, its store, and the cache names opened, in order
 */
export function memoryCaches(): { caches: CacheStorage; store: Map<string, Response>; opened: string[] } {
  const store = new Map<string, Response>();
  const opened: string[] = [];
  const cache = {
    match: async (url: string) => store.get(url)?.clone(),
    put: async (url: string, res: Response) => void store.set(url, res.clone()),
  };
  const caches = { open: async (name: string) => (opened.push(name), cache) } as unknown as CacheStorage;
  return { caches, store, opened };
}
