import { describe, expect, it } from 'vitest';
import { eventRelay } from '../../src/app/event_relay';

/** A receiver that handles each event only when the test says so (a busy page). */
function slowReceiver() {
  const handled: number[] = [];
  const waiting: (() => void)[] = [];
  const deliver = (ev: number) =>
    new Promise<void>((resolve) =>
      waiting.push(() => {
        handled.push(ev);
        resolve();
      }),
    );
  return { handled, waiting, deliver };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('eventRelay', () => {
  it('send does not wait for the receiver; drain waits until every event sent was handled', async () => {
    const r = slowReceiver();
    const relay = eventRelay(r.deliver);
    relay.send(1);
    relay.send(2);
    relay.send(3);
    expect(r.handled).toEqual([]);
    let drained = false;
    const d = relay.drain().then(() => (drained = true));
    r.waiting[2]();
    r.waiting[0]();
    await tick();
    expect(drained).toBe(false); // event 2 is still unhandled
    r.waiting[1]();
    await d;
    expect(drained).toBe(true);
    expect([...r.handled].sort()).toEqual([1, 2, 3]);
  });

  it('a failed or throwing delivery is dropped: drain still resolves and later events still go', async () => {
    const seen: number[] = [];
    const relay = eventRelay((ev: number) => {
      if (ev === 1) throw new Error('page gone');
      if (ev === 2) return Promise.reject(new Error('port closed'));
      seen.push(ev);
      return Promise.resolve();
    });
    relay.send(1);
    relay.send(2);
    relay.send(3);
    await expect(relay.drain()).resolves.toBeUndefined();
    expect(seen).toEqual([3]);
  });

  it('drain with nothing in flight resolves; events handled earlier are not waited for again', async () => {
    const r = slowReceiver();
    const relay = eventRelay(r.deliver);
    await relay.drain();
    relay.send(7);
    r.waiting[0]();
    await relay.drain();
    relay.send(8);
    let drained = false;
    const d = relay.drain().then(() => (drained = true));
    await tick();
    expect(drained).toBe(false);
    r.waiting[1]();
    await d;
    expect(r.handled).toEqual([7, 8]);
  });
});
