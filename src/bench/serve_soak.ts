/**
 * `hlab serve` memory soak, run by `hlab bench` in Node and standalone:
 *   node --expose-gc --import tsx src/bench/serve_soak.ts [--quick]
 * One server on 127.0.0.1 with its default workers (worker_threads: their heaps count in this
 * process's RSS), then the CI load generator (src/serve/load.ts, 16 clients, seed = block
 * number) in blocks of 1,000 episodes; after each block the process RSS (MiB) and, when `gc` is
 * exposed, this thread's heap after a GC. A leak shows as a rising line (a past worker-pool leak
 * grew ≈ 56 KB per episode: 373 → 1,334 MiB over ≈ 24.7k episodes). Reported, never
 * asserted; the assertion lives in tests/unit/worker_pool.test.ts.
 */
import { memoryUsage } from 'node:process';
import { pathToFileURL } from 'node:url';
import { startServer } from '../serve/server';
import { defaultWorkers } from '../serve/pool';
import { runLoad } from '../serve/load';

/** One block's reading. */
interface SoakPoint {
  /** Episodes completed so far. */
  episodes: number;
  /** Resident set size of the process, MiB. */
  rssMiB: number;
  /** Main-thread heap after a forced GC, MiB; null when `gc` is not exposed. */
  heapAfterGcMiB: number | null;
}

interface ServeSoakResult {
  config: { blocks: number; episodesPerBlock: number; clients: number; workers: number };
  points: SoakPoint[];
  /** Last RSS over the RSS after the first block (1 = flat). */
  rssGrowth: number;
  seconds: number;
}

const MiB = 1024 * 1024;

/**
 * Run the soak.
 * @param opts.quick 3 blocks instead of 20 (20,000 episodes, the bar).
 */
export async function soakServe(opts: { quick?: boolean; workers?: number } = {}): Promise<ServeSoakResult> {
  const limits = { maxBodyBytes: 64 * 1024, maxActionChars: 16_384, maxEpisodes: 256 };
  const config = { blocks: opts.quick ? 3 : 20, episodesPerBlock: 1000, clients: 16, workers: opts.workers ?? defaultWorkers() };
  const gc = (globalThis as { gc?: () => void }).gc;
  const t0 = performance.now();
  const server = await startServer({ host: '127.0.0.1', workers: config.workers, limits });
  const points: SoakPoint[] = [];
  try {
    for (let b = 0; b < config.blocks; b++) {
      await runLoad({ url: server.url, clients: config.clients, episodes: config.episodesPerBlock, seed: b, maxTurns: 4, ...limits });
      gc?.();
      const m = memoryUsage();
      points.push({
        episodes: (b + 1) * config.episodesPerBlock,
        rssMiB: Math.round(m.rss / MiB),
        heapAfterGcMiB: gc ? Math.round((10 * m.heapUsed) / MiB) / 10 : null,
      });
    }
  } finally {
    await server.close();
  }
  const rssGrowth = Math.round((100 * points[points.length - 1].rssMiB) / points[0].rssMiB) / 100;
  return { config, points, rssGrowth, seconds: Math.round((performance.now() - t0) / 100) / 10 };
}

/** One line per the bench's human output: RSS after each 1,000 episodes. */
export function soakLine(r: ServeSoakResult): string {
  const heap = r.points[0].heapAfterGcMiB === null ? '' : `; heap after GC MiB: ${r.points.map((p) => p.heapAfterGcMiB).join(' ')}`;
  return `RSS MiB per 1,000 episodes: ${r.points.map((p) => p.rssMiB).join(' ')} (×${r.rssGrowth} from first to last block, ${r.seconds} s, ${r.config.workers} workers)${heap}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await soakServe({ quick: process.argv.includes('--quick') });
  process.stdout.write(`${soakLine(r)}\n${JSON.stringify(r, null, 2)}\n`);
}
