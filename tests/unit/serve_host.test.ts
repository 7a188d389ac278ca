// The serve host steps a held episode only when the actions applied to it equal the history's
// earlier actions (env.ts `holdsEpisode`, shared with the rollout host). A client that re-sends
// a step with another action (a retry after a lost answer, or a second engine on the same
// episode id) must get the state of its own history, not of the copy left by the first send.
import { describe, expect, it } from 'vitest';
import { ServeHost, type ServeAction } from '../../src/serve/host';

const spec = { key: 'k', taskId: 'workspace/organize/t2/31', harnessId: 'S0-T0-O0-C0-W0', maxTurns: 10 };
const act = (text: string): ServeAction => ({ text, cutOff: false });
const write = act('{"tool":"write","args":{"path":"/stale.txt","content":"1"}}');
const junk = act('not a call');
const list = act('{"tool":"list","args":{"path":"/"}}');

describe('ServeHost.step', () => {
  it('replays a history whose earlier actions differ from the held copy’s, giving the state of a fresh host', () => {
    const host = new ServeHost();
    host.create(spec);
    expect(host.step(spec, [write]).replayed).toBe(false); // the held copy now has /stale.txt
    const resent = host.step(spec, [junk, list]); // same key and turn count, another first action
    const fresh = new ServeHost().step(spec, [junk, list]);
    expect(resent.replayed).toBe(true);
    expect(resent).toEqual(fresh);
    expect(resent.observation).not.toContain('stale.txt');
  });

  it('steps the held copy in place when its actions are the history’s', () => {
    const host = new ServeHost();
    host.create(spec);
    host.step(spec, [write]);
    const out = host.step(spec, [write, list]);
    expect(out.replayed).toBe(false);
    expect(out.observation).toContain('stale.txt');
    expect({ ...out, replayed: true }).toEqual(new ServeHost().step(spec, [write, list]));
  });
});
