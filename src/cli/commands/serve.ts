/**
 * `hlab serve [--host 127.0.0.1] [--port 8765] [--max-episodes N] [--token T] [--workers N]
 *   [--max-turns N] [--max-action-chars N] [--idle-s N] [--max-client-connections N] [--json]`:
 * the HTTP JSON environment server for external RL engines (src/serve/server.ts,
 * docs/SCALE-OUT.md). Loopback by default; any other --host needs --token (or the
 * HLAB_SERVE_TOKEN environment variable). Prints one line (with --json: one JSON object)
 * `listening on URL` once it listens; SIGINT / SIGTERM drain in-flight requests and exit 0.
 */
import type { Command } from 'commander';
import { intOption, UsageError } from '../cli_util';
import { DEFAULT_LIMITS } from '../../serve/protocol';
import { defaultWorkers } from '../../serve/pool';
import { isLoopback, startServer } from '../../serve/server';

interface ServeCliOptions {
  host: string;
  port: number;
  maxEpisodes: number;
  token?: string;
  workers?: number;
  maxTurns: number;
  maxActionChars: number;
  idleS: number;
  maxClientConnections: number;
  json?: boolean;
}

/** Register `hlab serve` on `program` (options above; a bad value is a one-line exit 2). */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      "HTTP JSON environment server (harnesses × task suites) for external RL engines such as verl and slime. It has no tokenizer of the engine's model, so C2 summaries and the coding-CLI compaction count ⌈chars / 4⌉ tokens (hlab run's rollouts count with the policy's tokenizer); an episode's maxTurns is its cap as given (no workflow overhead added)",
    )
    .option('--host <addr>', 'interface to bind; a non-loopback address requires --token', '127.0.0.1')
    .option('--port <n>', 'TCP port (0 = any free port)', intOption(0, 65_535), 8765)
    .option('--max-episodes <n>', 'most episodes held at once (429 beyond)', intOption(1, 1_000_000), DEFAULT_LIMITS.maxEpisodes)
    .option('--token <t>', 'bearer token required on every route but /v1/health (default: $HLAB_SERVE_TOKEN)')
    .option('--workers <n>', `worker threads running the episodes (0 = in-process; default ${defaultWorkers()} here)`, intOption(0, 256))
    .option('--max-turns <n>', 'largest maxTurns an episode may ask for', intOption(1, 1000), DEFAULT_LIMITS.maxTurns)
    .option('--max-action-chars <n>', 'longest action text accepted', intOption(1, 1 << 24), DEFAULT_LIMITS.maxActionChars)
    .option('--idle-s <n>', 'seconds after which an untouched episode is deleted', intOption(1, 7 * 86_400), DEFAULT_LIMITS.idleMs / 1000)
    .option(
      '--max-client-connections <n>',
      'most connections one client address holds open at once (one beyond is answered 429 and closed)',
      intOption(1, 100_000),
      DEFAULT_LIMITS.maxConnectionsPerClient,
    )
    .option('--json', 'print the listening line as JSON')
    .action(async (opts: ServeCliOptions) => {
      const token = opts.token ?? (process.env.HLAB_SERVE_TOKEN || undefined);
      if (!isLoopback(opts.host) && !token)
        throw new UsageError(`--host ${opts.host}: not a loopback address, so --token (or HLAB_SERVE_TOKEN) is required`);
      if (token !== undefined && !/^[\x21-\x7e]{8,256}$/.test(token))
        throw new UsageError('--token: expected 8 to 256 printable ASCII characters without spaces');
      let server;
      try {
        server = await startServer({
          host: opts.host,
          port: opts.port,
          token,
          workers: opts.workers,
          limits: {
            maxEpisodes: opts.maxEpisodes,
            maxTurns: opts.maxTurns,
            maxActionChars: opts.maxActionChars,
            idleMs: opts.idleS * 1000,
            maxConnectionsPerClient: opts.maxClientConnections,
          },
        });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE') throw new UsageError(`--port ${opts.port}: already in use`);
        if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
          throw new UsageError(`--host ${opts.host}: cannot bind (${err.code})`);
        throw e;
      }
      const info = { listening: server.url, host: server.host, port: server.port, auth: token !== undefined };
      process.stdout.write(
        opts.json ? JSON.stringify(info) + '\n' : `listening on ${server.url}${token ? ' (bearer token required)' : ''}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (sig: string) => {
          process.stderr.write(`[serve] ${sig}: draining in-flight requests\n`);
          void server.close().then(resolve);
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
      process.stderr.write(`[serve] stopped: ${JSON.stringify(server.stats)}\n`);
    });
}
