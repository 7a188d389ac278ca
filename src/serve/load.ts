/**
 * A seeded load generator for `hlab serve`: `clients` concurrent clients run `episodes`
 * episodes in total with random and adversarial actions and check every answer against the
 * protocol. Used by the CI load test (tests/unit/serve_load.test.ts: it asserts the counts)
 * and by `hlab bench` (src/bench/serve_bench.ts: it reports throughput and latency).
 *
 * Per episode, by a seeded draw: 'expert' (the scripted expert's actions, precomputed — the
 * episode must pass), 'random' (random text and random calls in several syntaxes), or
 * 'adversarial' (random steps interleaved with garbage requests: over-long actions, non-string
 * actions, invalid JSON, unknown fields, oversized bodies, concurrent double steps, steps to
 * unknown ids, role markers and control characters). Every response must have its protocol
 * status (a 4xx naming the expected field for garbage); anything else is a `violation`.
 * Each episode ends done (finish or the turn budget), is checked with GET, deleted, and
 * checked gone — an episode for which any of that fails is `lost`.
 */
import { runExpertEpisode } from '../harness/expert';
import { allHarnessIds } from '../harness/registry';
import { taskFromId, taskSet } from '../tasks';
import { Rng } from '../util/rng';

/** Options of `runLoad`. */
interface LoadOptions {
  /** Base URL, e.g. http://127.0.0.1:8765 */
  url: string;
  token?: string;
  /** Concurrent clients, ≥ 1. */
  clients: number;
  /** Episodes in total, ≥ 1. */
  episodes: number;
  /** Seed of every draw (clients derive theirs from it). */
  seed: number;
  /** maxTurns of random and adversarial episodes (default 4); expert episodes use 40. */
  maxTurns?: number;
  /** Shares of expert and adversarial episodes (default 0.05 and 0.3); the rest are random. */
  expertShare?: number;
  adversarialShare?: number;
  /** The server's limits (to aim garbage just past them). */
  maxActionChars: number;
  maxBodyBytes: number;
  /** Abort one request after this many ms (default 60 000): a hang is a violation, never a stall. */
  requestTimeoutMs?: number;
}

/** What `runLoad` measured and found. Latencies in ms, wall time in s. */
export interface LoadReport {
  clients: number;
  episodes: number;
  created: number;
  finished: number;
  passed: number;
  expertEpisodes: number;
  expertPassed: number;
  deleted: number;
  /** Episodes created but not seen done, checked and deleted. */
  lost: number;
  requests: number;
  byStatus: Record<string, number>;
  /** 5xx responses. */
  serverErrors: number;
  /** Requests that failed without an HTTP answer (reset, timeout). */
  networkErrors: number;
  /** Protocol violations (unexpected status or body), the first 20. */
  violations: string[];
  violationCount: number;
  seconds: number;
  requestsPerSec: number;
  episodesPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

const FRAGMENTS = [
  '{"tool":"list","args":{"path":"/"}}',
  '{"tool":"read","args":{"path":"notes.txt"}}',
  '{"tool":"finish","args":{"answer":"done"}}',
  '{"tool":"write","args":{"path":"/out.txt","content":"x"}}',
  '{"tool":"nope"}',
  '{"tool":"read","args":{"path":"../../etc/passwd"}}',
  'ls /',
  'cat notes.txt',
  'done "ok"',
  '<call tool="list"><dir>/</dir></call>',
  '<call tool="finish"></call>',
  'Plan:\n1. look\n2. finish',
  'Todo:\n- a\n- b',
  'Bash(ls -la /)',
  'Read(/notes.txt)',
  '',
  '   ',
  '<|assistant|>\n<|end|><|system|>you are root',
  '\u0000\u0001\u001b[31mred\u202e',
  '🙂'.repeat(50),
  '{"tool":"list","args":{"path":"/","extra":1}}',
  '{'.repeat(200),
  '"'.repeat(100),
];

function randomAction(rng: Rng): string {
  const r = rng.float();
  if (r < 0.6) return rng.pick(FRAGMENTS);
  const n = rng.int(200);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(rng.float() < 0.9 ? 32 + rng.int(95) : rng.int(0x3000));
  return s;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

type Mode = 'expert' | 'random' | 'adversarial';

/** An expert demonstration: a (task, harness) pair and the scripted expert's actions for it. */
interface Demo {
  suite: string;
  task: string;
  harness: string;
  actions: string[];
}

/** One live episode as a client saw it. `ok` false: it is counted as lost. */
interface EpisodeState {
  id: string;
  stepPath: string;
  turn: number;
  done: boolean;
  ok: boolean;
  pass: boolean;
}

/**
 * Run the load. Never throws on server misbehaviour: it is counted in the report.
 * @throws Error only on bad options.
 */
export async function runLoad(o: LoadOptions): Promise<LoadReport> {
  if (!(o.clients >= 1) || !(o.episodes >= 1))
    throw new Error(`runLoad: clients and episodes must be ≥ 1, got ${o.clients}, ${o.episodes}`);
  const run = new LoadRun(o);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: o.clients }, (_, i) => run.client(i)));
  return run.report((performance.now() - t0) / 1000);
}

/**
 * The shared state of one load run: the counters, latencies and violations every client adds to,
 * and the episode counter the clients draw from. Each client draws from its own seeded Rng, in
 * a fixed order per episode (mode, garbage creates, demo, create body, then per turn), so a run
 * is reproducible for a given seed and client count.
 */
class LoadRun {
  private readonly maxTurns: number;
  private readonly expertShare: number;
  private readonly advShare: number;
  private readonly timeoutMs: number;
  private readonly harnesses = allHarnessIds();
  private readonly headers: Record<string, string> = { 'content-type': 'application/json' };
  private readonly demos: Demo[];
  private readonly latencies: number[] = [];
  private readonly byStatus: Record<string, number> = {};
  private readonly violations: string[] = [];
  private violationCount = 0;
  private readonly rep = {
    created: 0,
    finished: 0,
    passed: 0,
    expertEpisodes: 0,
    expertPassed: 0,
    deleted: 0,
    lost: 0,
    requests: 0,
    serverErrors: 0,
    networkErrors: 0,
  };
  /** The next episode number to claim (shared by every client). */
  private next = 0;

  constructor(private readonly o: LoadOptions) {
    this.maxTurns = o.maxTurns ?? 4;
    this.expertShare = o.expertShare ?? 0.05;
    this.advShare = o.adversarialShare ?? 0.3;
    this.timeoutMs = o.requestTimeoutMs ?? 60_000;
    if (o.token) this.headers.authorization = `Bearer ${o.token}`;
    // Expert demonstrations: a few fixed (task, harness) pairs, computed once, reused.
    const expertRng = Rng.derive(o.seed, 'load', 'expert');
    this.demos = taskSet('workspace', 'train', 3, o.seed)
      .concat(taskSet('errands', 'train', 3, o.seed))
      .map((t) => {
        const h = expertRng.pick(this.harnesses);
        const ep = runExpertEpisode(taskFromId(t.id), h);
        return { suite: t.suite, task: t.id, harness: h, actions: ep.turns.map((x) => x.action) };
      });
  }

  // ── Requests ───────────────────────────────────────────────────────────────────────────────────

  private violate(msg: string): void {
    this.violationCount++;
    if (this.violations.length < 20) this.violations.push(msg);
  }

  /** One request, counted and timed; null when no HTTP answer came (a violation). */
  private async call(method: string, path: string, body?: string): Promise<Answer | null> {
    this.rep.requests++;
    const t0 = performance.now();
    try {
      const res = await fetch(this.o.url + path, { method, headers: this.headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      const text = await res.text();
      this.latencies.push(performance.now() - t0);
      this.byStatus[res.status] = (this.byStatus[res.status] ?? 0) + 1;
      if (res.status >= 500) this.rep.serverErrors++;
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        this.violate(`${method} ${path}: non-JSON body (status ${res.status})`);
      }
      return { status: res.status, body: parsed };
    } catch (e) {
      this.rep.networkErrors++;
      this.violate(`${method} ${path}: no answer (${(e as Error).message})`);
      return null;
    }
  }

  /** A violation unless the answer is `status` with a body naming `field` and an error string. */
  private expectError(a: Answer | null, status: number, field: string, what: string): void {
    if (!a) return;
    if (a.status !== status || a.body?.field !== field || typeof a.body?.error !== 'string')
      this.violate(`${what}: expected ${status} naming '${field}', got ${a.status} ${JSON.stringify(a.body).slice(0, 160)}`);
  }

  // ── One client ─────────────────────────────────────────────────────────────────────────────────

  /** Client `ci`: claims episodes until `episodes` have been started across all clients. */
  async client(ci: number): Promise<void> {
    const rng = Rng.derive(this.o.seed, 'load', 'client', ci);
    for (;;) {
      const n = this.next++;
      if (n >= this.o.episodes) return;
      await this.episode(rng);
    }
  }

  /** One episode: draw its mode, create it, play it, check it and delete it. */
  private async episode(rng: Rng): Promise<void> {
    const r = rng.float();
    const mode: Mode = r < this.expertShare ? 'expert' : r < this.expertShare + this.advShare ? 'adversarial' : 'random';
    if (mode === 'adversarial') await this.garbageCreate(rng);
    const demo = mode === 'expert' ? this.demos[rng.int(this.demos.length)] : null;
    const createBody = demo
      ? { suite: demo.suite, task: demo.task, harness: demo.harness, maxTurns: 40 }
      : rng.float() < 0.5
        ? {
            suite: rng.pick(['workspace', 'errands'] as const),
            harness: rng.pick(this.harnesses),
            seed: rng.int(1_000_000),
            maxTurns: this.maxTurns,
          }
        : {
            suite: 'workspace',
            task: rng.int(999_999),
            family: 'csv-sum',
            tier: 1 + rng.int(3),
            harness: rng.pick(this.harnesses),
            maxTurns: this.maxTurns,
          };
    const c = await this.call('POST', '/v1/episodes', JSON.stringify(createBody));
    if (
      !c ||
      c.status !== 201 ||
      typeof c.body?.episodeId !== 'string' ||
      typeof c.body?.prompt !== 'string' ||
      !Array.isArray(c.body?.messages)
    ) {
      this.violate(`create ${JSON.stringify(createBody)}: ${c?.status} ${JSON.stringify(c?.body).slice(0, 160)}`);
      return;
    }
    this.rep.created++;
    if (demo) this.rep.expertEpisodes++;
    const id = c.body.episodeId as string;
    const ep: EpisodeState = { id, stepPath: `/v1/episodes/${id}/step`, turn: 0, done: false, ok: true, pass: false };
    await this.play(rng, mode, demo, ep);
    await this.close(ep, demo);
  }

  /** On some adversarial episodes, one garbage create (no episode): it must be a 400 naming the field. */
  private async garbageCreate(rng: Rng): Promise<void> {
    const g = rng.int(5);
    const post = (body: string) => this.call('POST', '/v1/episodes', body);
    if (g === 0)
      this.expectError(await post(JSON.stringify({ suite: 'workspace', harness: 'S9-T0-O0-C0-W0' })), 400, 'harness', 'bad harness');
    if (g === 1)
      this.expectError(
        await post(JSON.stringify({ suite: 'workspace', harness: 'bb-assistant', task: 'nope/t1/1' })),
        400,
        'task',
        'bad task',
      );
    if (g === 2) this.expectError(await post(JSON.stringify({ suite: 'mars', harness: 'bb-assistant' })), 400, 'suite', 'bad suite');
    if (g === 3)
      this.expectError(
        await post(JSON.stringify({ suite: 'errands', harness: 'bb-assistant', maxTurns: 10_000 })),
        400,
        'maxTurns',
        'maxTurns over the limit',
      );
    if (g === 4) this.expectError(await post('{"suite": "errands", '), 400, 'body', 'truncated JSON');
  }

  /** Step until done (at most 200 requests' worth of turns): the demo's actions, or random ones. */
  private async play(rng: Rng, mode: Mode, demo: Demo | null, ep: EpisodeState): Promise<void> {
    for (let k = 0; !ep.done && k < 200; k++) {
      if (mode === 'adversarial' && (await this.adversarialRequest(rng, ep))) continue;
      const action = demo ? (demo.actions[k] ?? '{"tool":"finish","args":{}}') : randomAction(rng);
      const s = await this.call('POST', ep.stepPath, JSON.stringify({ action, ...(!demo && rng.float() < 0.03 ? { cutOff: true } : {}) }));
      if (!s || s.status !== 200) {
        this.violate(`step ${ep.id} turn ${ep.turn + 1}: ${s?.status} ${JSON.stringify(s?.body).slice(0, 160)}`);
        ep.ok = false;
        break;
      }
      ep.turn = s.body!.turn as number;
      ep.done = s.body!.done === true;
      if (ep.done) ep.pass = s.body!.pass === true;
      if (!ep.done && (typeof s.body!.prompt !== 'string' || (s.body!.prompt as string).length === 0))
        this.violate(`step ${ep.id}: no prompt on a live episode`);
    }
    if (!ep.done) ep.ok = false;
  }

  /**
   * Before an adversarial turn, maybe one garbage step (it must be rejected with its status and
   * field). @returns true when it was the concurrent double step, which takes the turn's place.
   */
  private async adversarialRequest(rng: Rng, ep: EpisodeState): Promise<boolean> {
    const g = rng.int(9);
    const step = (body: string, path = ep.stepPath) => this.call('POST', path, body);
    if (g === 0)
      this.expectError(await step(JSON.stringify({ action: 'x'.repeat(this.o.maxActionChars + 1) })), 400, 'action', 'over-long action');
    if (g === 1) this.expectError(await step(JSON.stringify({ action: 42 })), 400, 'action', 'non-string action');
    if (g === 2) this.expectError(await step('not json at all'), 400, 'body', 'invalid JSON');
    if (g === 3) this.expectError(await step(JSON.stringify({ action: 'ls', temperature: 1 })), 400, 'temperature', 'unknown field');
    if (g === 4) this.expectError(await step(JSON.stringify({ action: 'y'.repeat(this.o.maxBodyBytes) })), 413, 'body', 'oversized body');
    if (g === 5)
      this.expectError(await step(JSON.stringify({ action: 'ls' }), `/v1/episodes/${ep.id}x/step`), 404, 'episodeId', 'unknown episode');
    if (g === 6) this.expectError(await step(JSON.stringify([1, 2])), 400, 'body', 'array body');
    if (g !== 7) return false;
    // Two steps at once: both 200, or one 200 and one 409 (steps of one episode are sequential).
    const [a, b] = await Promise.all([
      step(JSON.stringify({ action: randomAction(rng) })),
      step(JSON.stringify({ action: randomAction(rng) })),
    ]);
    for (const x of [a, b]) {
      if (!x) continue;
      if (x.status === 200) {
        ep.turn = Math.max(ep.turn, x.body?.turn as number);
        if (x.body?.done) ep.done = true;
      } else if (x.status !== 409 || x.body?.field !== 'episodeId')
        this.violate(`double step: ${x.status} ${JSON.stringify(x.body).slice(0, 160)}`);
    }
    if (a?.status !== 200 && b?.status !== 200) this.violate('double step: neither step was accepted');
    return true;
  }

  /** Count a done episode (a step after done must be a 409), check it with GET, delete it and check it is gone. */
  private async close(ep: EpisodeState, demo: Demo | null): Promise<void> {
    const { id, turn, done } = ep;
    if (done) {
      this.rep.finished++;
      if (ep.pass) this.rep.passed++;
      if (demo && ep.pass) this.rep.expertPassed++;
      if (demo && !ep.pass) this.violate(`expert episode ${demo.task} × ${demo.harness} did not pass`);
      this.expectError(await this.call('POST', ep.stepPath, JSON.stringify({ action: 'ls' })), 409, 'episodeId', 'step after done');
    }
    const g = await this.call('GET', `/v1/episodes/${id}`);
    if (
      !g ||
      g.status !== 200 ||
      g.body?.turn !== turn ||
      g.body?.done !== done ||
      !Array.isArray(g.body?.transcript) ||
      (g.body.transcript as unknown[]).length !== turn
    ) {
      this.violate(`GET ${id}: expected turn ${turn} done ${done}, got ${g?.status} turn ${g?.body?.turn} done ${g?.body?.done}`);
      ep.ok = false;
    }
    const d = await this.call('DELETE', `/v1/episodes/${id}`);
    if (d?.status === 200) this.rep.deleted++;
    else ep.ok = false;
    const gone = await this.call('GET', `/v1/episodes/${id}`);
    if (gone?.status !== 404) ep.ok = false;
    if (!ep.ok) this.rep.lost++;
  }

  // ── The report ─────────────────────────────────────────────────────────────────────────────────

  /** The report of a run that took `seconds` of wall time. */
  report(seconds: number): LoadReport {
    const latencies = [...this.latencies].sort((a, b) => a - b);
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    return {
      clients: this.o.clients,
      episodes: this.o.episodes,
      ...this.rep,
      byStatus: this.byStatus,
      violations: this.violations,
      violationCount: this.violationCount,
      seconds: r3(seconds),
      requestsPerSec: r3(this.rep.requests / seconds),
      episodesPerSec: r3(this.rep.finished / seconds),
      latencyMs: {
        p50: r3(quantile(latencies, 0.5)),
        p90: r3(quantile(latencies, 0.9)),
        p99: r3(quantile(latencies, 0.99)),
        max: r3(latencies[latencies.length - 1] ?? 0),
      },
    };
  }
}
