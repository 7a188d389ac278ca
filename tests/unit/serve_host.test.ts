// The serve host steps a held episode only when the actions applied to it equal the history's
// earlier actions (src/episode/host.ts `holdsEpisode`). A client that re-sends
// a step with another action (a retry after a lost answer, or a second engine on the same
// episode id) must get the state of its own history, not of the copy left by the first send.
import { describe, expect, it } from 'vitest';
import { EpisodeHost, type ActionInput } from '../../src/episode/host';

const serveHost = () => new EpisodeHost({ maxTurns: 'turns', capacity: 4096 });

const spec = { key: 'k', taskId: 'workspace/organize/t2/31', harnessId: 'S0-T0-O0-C0-W0', maxTurns: 10 };
const act = (text: string): ActionInput => ({ text, cutOff: false });
const write = act('{"tool":"write","args":{"path":"/stale.txt","content":"1"}}');
const junk = act('not a call');
const list = act('{"tool":"list","args":{"path":"/"}}');

describe('EpisodeHost.step (serve)', () => {
  it('replays a history whose earlier actions differ from the held copy’s, giving the state of a fresh host', () => {
    const host = serveHost();
    host.reset(spec);
    expect(host.step(spec, [write]).replayed).toBe(false); // the held copy now has /stale.txt
    const resent = host.step(spec, [junk, list]); // same key and turn count, another first action
    const fresh = serveHost().step(spec, [junk, list]);
    expect(resent.replayed).toBe(true);
    expect(resent).toEqual(fresh);
    expect(resent.observation).not.toContain('stale.txt');
  });

  it('steps the held copy in place when its actions are the history’s', () => {
    const host = serveHost();
    host.reset(spec);
    host.step(spec, [write]);
    const out = host.step(spec, [write, list]);
    expect(out.replayed).toBe(false);
    expect(out.observation).toContain('stale.txt');
    expect({ ...out, replayed: true }).toEqual(serveHost().step(spec, [write, list]));
  });
});
