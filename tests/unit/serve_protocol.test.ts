import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { startServer, isLoopback } from '../../src/serve/server';
import { runExpertEpisode } from '../../src/harness/expert';
import { taskFromId } from '../../src/tasks';
import { EpisodeHost } from '../../src/episode/host';

/** A started server. */
type RunningServer = Awaited<ReturnType<typeof startServer>>;

const ROOT = resolve(__dirname, '../..');

interface Answer {
  status: number;
  body: any;
}

function client(s: RunningServer, token?: string) {
  return async (method: string, path: string, body?: unknown, raw?: string): Promise<Answer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(s.url + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    return { status: res.status, body: JSON.parse(await res.text()) };
  };
}

describe('hlab serve protocol (in-process host)', () => {
  let s: RunningServer;
  let call: ReturnType<typeof client>;
  let clock = 1_000_000;
  beforeAll(async () => {
    s = await startServer({
      workers: 0,
      now: () => clock,
      limits: { maxEpisodes: 5, maxTurns: 50, idleMs: 60_000, maxActionChars: 1000, maxBodyBytes: 8192 },
    });
    call = client(s);
  });
  afterAll(() => s.close());

  it('health, harnesses, design and tasks describe the server and the space', async () => {
    const h = await call('GET', '/v1/health');
    expect(h.status).toBe(200);
    expect(h.body.ok).toBe(true);
    expect(h.body.limits.maxEpisodes).toBe(5);
    const hs = await call('GET', '/v1/harnesses');
    expect(hs.body.composed).toHaveLength(243);
    expect(hs.body.blackbox).toEqual(['bb-coding-cli', 'bb-assistant']);
    expect(hs.body.components.map((c: { key: string }) => c.key)).toEqual(['S', 'T', 'O', 'C', 'W']);
    const d = await call('GET', '/v1/design?method=oa&k=18&seed=0');
    expect(d.status).toBe(200);
    expect(d.body.training).toHaveLength(18);
    expect(d.body.heldOut).toHaveLength(225);
    expect(d.body.heldOut[0]).toHaveProperty('distance');
    const r = await call('GET', '/v1/design?method=random&k=7&seed=3');
    expect(r.body.training).toHaveLength(7);
    const t = await call('GET', '/v1/tasks?suite=errands&split=test&n=5&seed=2');
    expect(t.body.tasks).toHaveLength(5);
    expect(t.body.tasks.every((x: { id: string; seed: number }) => x.id.startsWith('errands/') && x.seed >= 1_000_000)).toBe(true);
  });

  it('an expert episode through HTTP passes with reward 1, and its state and transcript are served', async () => {
    const taskId = 'workspace/csv-sum/t2/1000017';
    const harness = 'S1-T1-O2-C1-W1';
    const demo = runExpertEpisode(taskFromId(taskId), harness);
    expect(demo.pass).toBe(true);
    const c = await call('POST', '/v1/episodes', { suite: 'workspace', task: 'csv-sum/t2/1000017', harness, maxTurns: 40 });
    expect(c.status).toBe(201);
    expect(c.body.task).toBe(taskId);
    expect(c.body.prompt).toBe(demo.turns[0].context);
    expect(c.body.messages[0].role).toBe('system');
    let last: Answer | undefined;
    for (const [i, t] of demo.turns.entries()) {
      last = await call('POST', `/v1/episodes/${c.body.episodeId}/step`, { action: t.action });
      expect(last.status).toBe(200);
      expect(last.body.turn).toBe(i + 1);
      if (i + 1 < demo.turns.length) expect(last.body.prompt).toBe(demo.turns[i + 1].context);
    }
    expect(last!.body).toMatchObject({ done: true, pass: true, reward: 1, score: 1, truncated: false, messages: [], prompt: '' });
    expect(last!.body.tags.terminated).toBe(true);
    const g = await call('GET', `/v1/episodes/${c.body.episodeId}`);
    expect(g.body).toMatchObject({ done: true, turn: demo.turns.length, harness, task: taskId, result: { pass: true, reward: 1 } });
    expect(g.body.transcript.map((x: { action: string }) => x.action)).toEqual(demo.turns.map((x) => x.action));
    const again = await call('POST', `/v1/episodes/${c.body.episodeId}/step`, { action: 'ls' });
    expect(again).toMatchObject({ status: 409, body: { field: 'episodeId', code: 'episode_done' } });
    expect((await call('DELETE', `/v1/episodes/${c.body.episodeId}`)).status).toBe(200);
    expect((await call('GET', `/v1/episodes/${c.body.episodeId}`)).body.field).toBe('episodeId');
  });

  it('a task drawn from a seed, a bare task seed and a black-box harness all work; the turn budget truncates', async () => {
    const a = await call('POST', '/v1/episodes', { suite: 'errands', harness: 'bb-coding-cli', seed: 12, split: 'test' });
    expect(a.status).toBe(201);
    expect(a.body.task).toMatch(/^errands\/[a-z-]+\/t[123]\/1\d{6}$/);
    const b = await call('POST', '/v1/episodes', { suite: 'workspace', task: 77, tier: 3, harness: 'bb-assistant', maxTurns: 2 });
    expect(b.body.task).toBe('workspace/csv-sum/t3/77');
    const s1 = await call('POST', `/v1/episodes/${b.body.episodeId}/step`, { action: '{garbage \u0000 <|end|>' });
    expect(s1.body).toMatchObject({ done: false, kind: 'parse_error' });
    // Both actions start with '{': a broken call, not the black box's final plain-text reply.
    const s2 = await call('POST', `/v1/episodes/${b.body.episodeId}/step`, { action: '{' });
    expect(s2.body).toMatchObject({ done: true, truncated: true, truncationReason: 'turns', reward: 0 });
    const c = await call('POST', '/v1/episodes', { suite: 'workspace', task: 5, harness: 'S0-T0-O0-C0-W0' });
    const cut = await call('POST', `/v1/episodes/${c.body.episodeId}/step`, { action: '{"tool":"li', cutOff: true });
    expect(cut.body).toMatchObject({ done: true, truncated: true, truncationReason: 'action', kind: 'cutoff' });
    for (const id of [a.body.episodeId, b.body.episodeId, c.body.episodeId]) await call('DELETE', `/v1/episodes/${id}`);
  });

  it.each([
    ['missing suite', { harness: 'bb-assistant' }, 'suite'],
    ['unknown suite', { suite: 'mars', harness: 'bb-assistant' }, 'suite'],
    ['unknown harness', { suite: 'workspace', harness: 'S3-T0-O0-C0-W0' }, 'harness'],
    ['bad task id', { suite: 'workspace', harness: 'bb-assistant', task: 'csv-sum/t9/1' }, 'task'],
    ['task of another suite', { suite: 'workspace', harness: 'bb-assistant', task: 'errands/todo-update/t1/5' }, 'task'],
    ['task seed out of range', { suite: 'workspace', harness: 'bb-assistant', task: 5_000_000 }, 'task'],
    ['unknown family', { suite: 'workspace', harness: 'bb-assistant', task: 5, family: 'nope' }, 'family'],
    ['maxTurns over the limit', { suite: 'workspace', harness: 'bb-assistant', maxTurns: 51 }, 'maxTurns'],
    ['maxTurns not an integer', { suite: 'workspace', harness: 'bb-assistant', maxTurns: 2.5 }, 'maxTurns'],
    ['unknown field', { suite: 'workspace', harness: 'bb-assistant', temperature: 0.7 }, 'temperature'],
    ['body not an object', [1, 2], 'body'],
  ])('create with %s → 400 naming %s', async (_name, body, field) => {
    const r = await call('POST', '/v1/episodes', body);
    expect(r.status).toBe(400);
    expect(r.body.field).toBe(field);
    expect(typeof r.body.error).toBe('string');
    expect(r.body.error).not.toContain('\n');
  });

  it('bad steps, routes, methods and bodies are 4xx naming the field; the episode survives them', async () => {
    const c = await call('POST', '/v1/episodes', { suite: 'workspace', task: 5, harness: 'S0-T0-O0-C0-W0' });
    const path = `/v1/episodes/${c.body.episodeId}/step`;
    const cases: [string, Answer, number, string][] = [
      ['over-long action', await call('POST', path, { action: 'x'.repeat(1001) }), 400, 'action'],
      ['non-string action', await call('POST', path, { action: { tool: 'ls' } }), 400, 'action'],
      ['missing action', await call('POST', path, {}), 400, 'action'],
      ['cutOff not boolean', await call('POST', path, { action: 'ls', cutOff: 'yes' }), 400, 'cutOff'],
      ['invalid JSON', await call('POST', path, undefined, '{"action": '), 400, 'body'],
      ['empty body', await call('POST', path, undefined, ''), 400, 'body'],
      ['oversized body', await call('POST', path, undefined, JSON.stringify({ action: 'y'.repeat(9000) })), 413, 'body'],
      ['unknown episode', await call('POST', '/v1/episodes/nope/step', { action: 'ls' }), 404, 'episodeId'],
      ['unknown route', await call('GET', '/v2/health'), 404, 'path'],
      ['unknown sub-route', await call('GET', '/v1/episodes/x/y/z'), 404, 'path'],
      ['wrong method', await call('PUT', '/v1/episodes'), 405, 'method'],
      ['unknown query parameter', await call('GET', '/v1/harnesses?x=1'), 400, 'x'],
      ['bad design k for oa', await call('GET', '/v1/design?method=oa&k=7'), 400, 'k'],
      ['bad design method', await call('GET', '/v1/design?method=best'), 400, 'method'],
      ['bad tasks n', await call('GET', '/v1/tasks?suite=workspace&n=-1'), 400, 'n'],
      ['tasks without suite', await call('GET', '/v1/tasks'), 400, 'suite'],
    ];
    for (const [name, r, status, field] of cases) {
      expect({ name, status: r.status, field: r.body.field }).toEqual({ name, status, field });
    }
    const ok = await call('POST', path, { action: '{"tool":"list","args":{"path":"/"}}' });
    expect(ok).toMatchObject({ status: 200, body: { turn: 1, kind: 'tool', done: false } });
    await call('DELETE', `/v1/episodes/${c.body.episodeId}`);
  });

  it('refuses episodes beyond maxEpisodes with 429, and idle episodes expire on the injected clock', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await call('POST', '/v1/episodes', { suite: 'errands', harness: 'bb-assistant', seed: i })).body.episodeId);
    const over = await call('POST', '/v1/episodes', { suite: 'errands', harness: 'bb-assistant' });
    expect(over).toMatchObject({ status: 429, body: { field: 'episodes' } });
    clock += 30_000;
    await call('POST', `/v1/episodes/${ids[0]}/step`, { action: 'ls' }); // touched: survives
    clock += 30_001;
    expect(s.sweep()).toBe(4);
    expect((await call('GET', `/v1/episodes/${ids[1]}`)).status).toBe(404);
    expect((await call('GET', `/v1/episodes/${ids[0]}`)).status).toBe(200);
    expect(s.stats.expired).toBe(4);
    await call('DELETE', `/v1/episodes/${ids[0]}`);
    expect(s.stats.status5xx).toBe(0);
  });
});

describe('hlab serve auth, workers, shutdown', () => {
  it('requires the bearer token on every route but health; refuses a non-loopback host without one', async () => {
    expect(isLoopback('127.0.0.1') && isLoopback('::1') && !isLoopback('0.0.0.0')).toBe(true);
    await expect(startServer({ host: '0.0.0.0', workers: 0 })).rejects.toThrow(/token is required/);
    const s = await startServer({ workers: 0, token: 'sekret-token-1' });
    try {
      expect((await client(s)('GET', '/v1/health')).status).toBe(200);
      const no = await client(s)('GET', '/v1/harnesses');
      expect(no).toMatchObject({ status: 401, body: { field: 'authorization' } });
      expect((await client(s, 'wrong-token-00')('POST', '/v1/episodes', { suite: 'workspace', harness: 'bb-assistant' })).status).toBe(401);
      expect((await client(s, 'sekret-token-1')('POST', '/v1/episodes', { suite: 'workspace', harness: 'bb-assistant' })).status).toBe(201);
    } finally {
      await s.close();
    }
  });

  it('one hung step occupies one worker: other episodes run to the end meanwhile, and the hung one fails alone', async () => {
    const STALL = '<<stall this worker>>';
    // The hung step's 503 is an internal error the server logs with its stack: expected here,
    // so it is collected and checked instead of printed into a passing run.
    const logged: string[] = [];
    // The watchdog fires when the test says so, not after a wall-clock time the other episodes
    // had to beat (on a loaded machine 15 s could pass before they finished).
    const armed = new Set<() => void>();
    const startWatchdog = (fire: () => void) => {
      armed.add(fire);
      return () => armed.delete(fire);
    };
    const s = await startServer({
      workers: 2,
      watchdogMs: 15_000,
      maxRetries: 0,
      stallAction: STALL,
      log: (l) => logged.push(l),
      startWatchdog,
    });
    const call = client(s);
    try {
      const slow = await call('POST', '/v1/episodes', { suite: 'workspace', task: 5, harness: 'S0-T0-O0-C0-W0' });
      let slowSettled = false;
      const slowStep = call('POST', `/v1/episodes/${slow.body.episodeId}/step`, { action: STALL }).finally(() => (slowSettled = true));
      // While it hangs, three whole episodes (create + 3 turns each) complete on the other worker.
      for (let e = 0; e < 3; e++) {
        const c = await call('POST', '/v1/episodes', { suite: 'errands', harness: 'bb-coding-cli', seed: e, maxTurns: 3 });
        expect(c.status).toBe(201);
        let r: Answer | undefined;
        for (let t = 0; t < 3; t++)
          r = await call('POST', `/v1/episodes/${c.body.episodeId}/step`, { action: '{"tool":"LS","args":{"path":"/"}}' });
        expect(r!.body.done).toBe(true);
      }
      expect(slowSettled).toBe(false);
      // A second step of the hung episode is refused while the first is in progress.
      expect((await call('POST', `/v1/episodes/${slow.body.episodeId}/step`, { action: 'ls' })).status).toBe(409);
      // Only the hung step's watchdog is still armed: fire it.
      expect(armed.size).toBe(1);
      for (const fire of armed) fire();
      const r = await slowStep; // the watchdog replaces the worker; no retries here, so a 503
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('internal');
      expect(logged).toEqual([
        expect.stringMatching(/^\[serve\] internal error on POST \/v1\/episodes\/.*\/step: Error: job exceeded the 15000 ms watchdog/),
      ]);
      // The episode is still at turn 0 and usable on a fresh worker.
      const ok = await call('POST', `/v1/episodes/${slow.body.episodeId}/step`, { action: '{"tool":"list","args":{}}' });
      expect(ok).toMatchObject({ status: 200, body: { turn: 1 } });
    } finally {
      await s.close();
    }
  });

  it('close() lets an in-flight request finish, then refuses connections', async () => {
    const s = await startServer({ workers: 1 });
    const call = client(s);
    const c = await call('POST', '/v1/episodes', { suite: 'workspace', task: 5, harness: 'S0-T0-O0-C0-W0' });
    const before = s.stats.requests;
    const inFlight = call('POST', `/v1/episodes/${c.body.episodeId}/step`, { action: '{"tool":"list","args":{}}' });
    while (s.stats.requests === before) await new Promise((r) => setImmediate(r)); // the server has it
    const closed = s.close();
    expect((await inFlight).status).toBe(200);
    await closed;
    await expect(fetch(s.url + '/v1/health')).rejects.toThrow();
  });

  it('the host replays a history it does not hold into the same state', () => {
    const spec = { key: 'k', taskId: 'workspace/organize/t2/31', harnessId: 'S2-T2-O1-C2-W2', maxTurns: 10 };
    const actions = ['Plan: x', 'Todo:\n- a', '<call tool="list"><dir>/</dir></call>', 'junk'].map((text) => ({ text, cutOff: false }));
    const a = new EpisodeHost({ maxTurns: 'turns' });
    a.reset(spec);
    let outA;
    for (let i = 1; i <= actions.length; i++) outA = a.step(spec, actions.slice(0, i));
    const b = new EpisodeHost({ maxTurns: 'turns' });
    const outB = b.step(spec, actions);
    expect(outB.replayed).toBe(true);
    expect({ ...outB, replayed: false }).toEqual({ ...outA!, replayed: false });
  });
});

/**
 * `npm run hlab` as package.json states it, spawned without npm (a supervisor's view): the
 * program and its arguments. The script must start the program itself — a wrapper that relays
 * signals and kills a slow child would turn SIGTERM into exit 143 without a drain.
 */
function hlabScript(args: string[]): { cmd: string; args: string[] } {
  const [cmd, ...rest] = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).scripts.hlab as string).split(' ');
  return { cmd: cmd === 'node' ? process.execPath : resolve(ROOT, 'node_modules/.bin', cmd), args: [...rest, ...args] };
}

/** The process that runs the server: the spawned one, or the child a wrapper started (Linux /proc). */
function servingPid(pid: number): number {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return kids[0] ?? pid;
  } catch {
    return pid;
  }
}

/** Start `hlab serve --port 0 --json …` through the npm script's command; resolves with its URL once it listens. */
async function serveProcess(extra: string[] = []) {
  const h = hlabScript(['serve', '--port', '0', '--json', ...extra]);
  const p = spawn(h.cmd, h.args, { cwd: ROOT });
  let stderr = '';
  p.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((res) => p.on('close', res));
  const line = await new Promise<string>((res, rej) => {
    createInterface({ input: p.stdout }).once('line', res);
    p.once('error', rej);
  });
  return { p, url: JSON.parse(line).listening as string, exited, stderr: () => stderr };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('hlab serve CLI', () => {
  it('bad flags exit 2 with one line naming them; the server starts, answers and stops on SIGTERM with exit 0', async () => {
    const bad = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const h = hlabScript(['serve', '--host', '0.0.0.0']);
      const p = spawn(h.cmd, h.args, { cwd: ROOT, env: { ...process.env, HLAB_SERVE_TOKEN: '' } });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (code) => res({ code, stderr }));
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--host 0.0.0.0');

    const s = await serveProcess(['--workers', '1']);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const h = await fetch(s.url + '/v1/health').then((r) => r.json());
    expect(h.ok).toBe(true);
    // Stalled as on a loaded machine: SIGTERM arrives while the server's process is stopped for 0.5 s.
    const pid = servingPid(s.p.pid!);
    process.kill(pid, 'SIGSTOP');
    s.p.kill('SIGTERM');
    await sleep(500);
    process.kill(pid, 'SIGCONT');
    expect(await s.exited).toBe(0);
    expect(s.stderr()).toMatch(/\[serve\] SIGTERM: draining in-flight requests\n\[serve\] stopped: /);
  });

  it('SIGTERM under load drains in-flight requests: every episode the server created was answered', async () => {
    const s = await serveProcess(['--workers', '1']);
    const post = (path: string, body: unknown) =>
      fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        async (r) => ({ status: r.status, body: JSON.parse(await r.text()) }),
        (e: Error) => ({ status: 0, body: { error: String(e.cause ?? e) } }),
      );
    // Episodes in play, then a burst of creations and steps in flight when SIGTERM comes.
    const live = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post('/v1/episodes', { suite: 'workspace', task: i, harness: 'S0-T0-O0-C0-W0', maxTurns: 20 })),
    );
    expect(live.every((r) => r.status === 201)).toBe(true);
    const burst = [
      ...Array.from({ length: 24 }, (_, i) => post('/v1/episodes', { suite: 'errands', task: i, harness: 'S1-T1-O1-C1-W1', maxTurns: 20 })),
      ...live.map((r) =>
        post(`/v1/episodes/${r.body.episodeId}/step`, { action: 'Plan: look around\n<call tool="list"><dir>/</dir></call>' }),
      ),
    ];
    // The signal comes once the first answer is back: the rest are being served or queued.
    await Promise.race(burst);
    s.p.kill('SIGTERM');
    const answers = await Promise.all(burst);
    expect(await s.exited).toBe(0);
    // Each request was answered (2xx, or 503 'shutting down' for one that came after the signal) or never reached the server.
    for (const a of answers) expect([0, 200, 201, 503]).toContain(a.status);
    // Requests in flight at the signal were finished, not cut (the first answer alone came before it).
    expect(answers.filter((a) => a.status === 200 || a.status === 201).length).toBeGreaterThanOrEqual(2);
    const stats = JSON.parse(s.stderr().match(/\[serve\] stopped: (.*)/)![1]);
    // No episode created without its answer reaching the client: none was lost in the drain.
    expect(stats.created).toBe(8 + answers.filter((a) => a.status === 201).length);
    expect(stats.status5xx).toBe(answers.filter((a) => a.status === 503).length);
  });
});

describe('hlab serve under abuse', () => {
  /** One raw HTTP exchange on a socket held open: resolves with the response head's status and code once the server closes it. */
  function rawExchange(url: string, head: string, body = ''): { socket: Socket; answer: Promise<{ status: number; text: string }> } {
    const u = new URL(url);
    const socket = connect(Number(u.port), u.hostname);
    const answer = new Promise<{ status: number; text: string }>((res) => {
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('close', () => res({ status: Number(text.match(/^HTTP\/1\.1 (\d+)/)?.[1] ?? 0), text }));
      socket.on('error', () => {});
    });
    socket.once('connect', () => socket.write(head + body));
    return { socket, answer };
  }

  it('a client beyond its connection cap gets a 429 and its connection closed; the others are served', async () => {
    const s = await startServer({ workers: 0, limits: { maxConnectionsPerClient: 2 } });
    try {
      const held = [0, 1].map(() => connect(s.port, '127.0.0.1'));
      await Promise.all(held.map((c) => new Promise((r) => c.once('connect', r))));
      await sleep(50);
      const third = rawExchange(s.url, 'GET /v1/health HTTP/1.1\r\nhost: x\r\n\r\n');
      const a = await third.answer;
      expect(a.status).toBe(429);
      expect(a.text).toContain('"code":"too_many_connections"');
      for (const c of held) c.destroy();
      await sleep(50);
      expect((await fetch(s.url + '/v1/health')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('a body that stalls is refused (408) and its connection closed well before the request timeout', async () => {
    const s = await startServer({ workers: 0, limits: { bodyTimeoutMs: 300 } });
    try {
      const x = rawExchange(
        s.url,
        'POST /v1/episodes HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n',
        '{"suite":',
      );
      const a = await x.answer;
      expect(a.status).toBe(408);
      expect(a.text).toContain('"code":"body_timeout"');
      expect(s.stats.status5xx).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe('hlab serve never answers garbage with a 5xx', () => {
  it('400 seeded random requests (methods, paths, queries, bodies) all get a JSON 2xx/4xx', async () => {
    const { Rng } = await import('../../src/util/rng');
    const s = await startServer({ workers: 0, limits: { maxBodyBytes: 4096 } });
    const rng = new Rng(2024);
    const ep = (await client(s)('POST', '/v1/episodes', { suite: 'workspace', task: 5, harness: 'S0-T0-O0-C0-W0', maxTurns: 50 })).body
      .episodeId as string;
    const pieces = [
      'v1',
      'episodes',
      'step',
      'health',
      'design',
      'tasks',
      'harnesses',
      ep,
      '%',
      '%zz',
      '..',
      '',
      '😀',
      'x'.repeat(300),
      '%00',
      '?a=1',
      '?method=oa&method=oa',
      '?suite=workspace&n=abc',
    ];
    const bodies = [
      '',
      '{}',
      'null',
      '[]',
      '{"action":"ls"}',
      '{"action":null}',
      '{"suite":"workspace","harness":"bb-assistant","task":{}}',
      '\u0000\u00ff',
      '{"__proto__":{"x":1}}',
      '{"action":"' + 'a'.repeat(5000) + '"}',
      '1e999',
      '"str"',
    ];
    try {
      for (let i = 0; i < 400; i++) {
        const path = '/' + Array.from({ length: 1 + rng.int(4) }, () => rng.pick(pieces)).join('/');
        const method = rng.pick(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']);
        const body = method === 'GET' || method === 'OPTIONS' ? undefined : rng.pick(bodies);
        const res = await fetch(s.url + path, {
          method,
          body,
          headers: { 'content-type': rng.pick(['application/json', 'text/plain', 'x/y']) },
        });
        const text = await res.text();
        expect({ path, method, status: res.status < 500 }).toEqual({ path, method, status: true });
        expect(() => JSON.parse(text)).not.toThrow();
      }
      expect(s.stats.status5xx).toBe(0);
    } finally {
      await s.close();
    }
  });
});
