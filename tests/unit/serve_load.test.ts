import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/serve/server';
import { runLoad } from '../../src/serve/load';

/** A started server. */
type RunningServer = Awaited<ReturnType<typeof startServer>>;

/**
 * The CI load test of `hlab serve` on loopback, bounded in count (1,000 episodes, 32 clients)
 * and in time (the test timeout; every request aborts after 60 s). Counts only: speed is
 * reported by `hlab bench`, never asserted.
 */
const LIMITS = { maxBodyBytes: 64 * 1024, maxActionChars: 16_384, maxEpisodes: 256 };

describe('hlab serve under load (127.0.0.1)', () => {
  let s: RunningServer;
  beforeAll(async () => {
    s = await startServer({ host: '127.0.0.1', workers: 2, limits: LIMITS });
  });
  afterAll(() => s.close());

  it('1,000 episodes from 32 concurrent clients with random and adversarial actions: 0 server errors, 0 lost episodes', async () => {
    const r = await runLoad({ url: s.url, clients: 32, episodes: 1000, seed: 14, maxTurns: 4, ...LIMITS });
    expect(r.violations).toEqual([]);
    expect(r.serverErrors).toBe(0);
    expect(r.networkErrors).toBe(0);
    expect(r.lost).toBe(0);
    expect(r.created).toBe(1000);
    expect(r.finished).toBe(1000);
    expect(r.deleted).toBe(1000);
    // Expert episodes (precomputed demonstrations) pass through the server; garbage was sent.
    expect(r.expertEpisodes).toBeGreaterThan(0);
    expect(r.expertPassed).toBe(r.expertEpisodes);
    for (const code of ['400', '404', '409', '413']) expect(r.byStatus[code] ?? 0).toBeGreaterThan(0);
    // The server's own books agree: nothing held, no 5xx.
    const st = s.stats;
    expect(st).toMatchObject({ created: 1000, finished: 1000, deleted: 1000, expired: 0, held: 0, status5xx: 0 });
    expect(st.requests).toBe(r.requests);
  }, 600_000);
});
