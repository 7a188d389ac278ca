/**
 * `hlab serve` throughput and latency, run by `hlab bench` in Node (not in the
 * page: it starts a real HTTP server on 127.0.0.1) and standalone:
 *   npx tsx src/bench/serve_bench.ts [--quick]
 * The load is src/serve/load.ts (the CI load test's generator): 32 concurrent clients,
 * 1,000 episodes (quick: 200) of ≤ 4 turns, random and adversarial actions, seed 0.
 * Reports requests/s and episodes/s (wall clock, worker start-up included) and request
 * latency quantiles in ms; plus the core count and load average, since on a shared machine
 * the numbers mean little without them. Speed is reported, never asserted.
 */
import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { startServer } from '../serve/server';
import { defaultWorkers } from '../serve/pool';
import { runLoad, type LoadReport } from '../serve/load';

/** The bench result: configuration, measurements, and the errors that must be 0. */
interface ServeBenchResult {
  config: { clients: number; episodes: number; maxTurns: number; workers: number; seed: number };
  machine: { cores: number; loadavg1: number };
  requests: number;
  requestsPerSec: number;
  episodesPerSec: number;
  /** Request latency, ms. */
  latencyMs: LoadReport['latencyMs'];
  serverErrors: number;
  lost: number;
  violations: number;
  seconds: number;
}

/**
 * Start a server on 127.0.0.1 (any free port), run the load, stop it.
 * @param opts.quick 200 episodes instead of 1,000.
 */
export async function benchServe(opts: { quick?: boolean; workers?: number } = {}): Promise<ServeBenchResult> {
  const limits = { maxBodyBytes: 64 * 1024, maxActionChars: 16_384, maxEpisodes: 256 };
  const config = { clients: 32, episodes: opts.quick ? 200 : 1000, maxTurns: 4, workers: opts.workers ?? defaultWorkers(), seed: 0 };
  const server = await startServer({ host: '127.0.0.1', workers: config.workers, limits });
  try {
    const r = await runLoad({
      url: server.url,
      clients: config.clients,
      episodes: config.episodes,
      seed: config.seed,
      maxTurns: config.maxTurns,
      ...limits,
    });
    return {
      config,
      machine: { cores: availableParallelism(), loadavg1: Math.round(loadavg()[0] * 100) / 100 },
      requests: r.requests,
      requestsPerSec: r.requestsPerSec,
      episodesPerSec: r.episodesPerSec,
      latencyMs: r.latencyMs,
      serverErrors: r.serverErrors,
      lost: r.lost,
      violations: r.violationCount,
      seconds: r.seconds,
    };
  } finally {
    await server.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const workersArg = process.argv.indexOf('--workers');
  const r = await benchServe({
    quick: process.argv.includes('--quick'),
    workers: workersArg > 0 ? Number(process.argv[workersArg + 1]) : undefined,
  });
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
