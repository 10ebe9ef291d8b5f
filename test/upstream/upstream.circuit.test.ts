import { setTimeout as sleep } from 'node:timers/promises';
import { CircuitState } from '../../src/upstream/upstream.breaker';
import { Circuit } from '../../src/upstream/upstream.circuit';

class Unwell extends Error {}
class Refused extends Error {}

function circuit(resetTimeoutMs = 50) {
  const states: CircuitState[] = [];
  const c = new Circuit({
    resetTimeoutMs,
    errorThresholdPercentage: 50,
    volumeThreshold: 4,
    windowMs: 10_000,
    buckets: 10,
    countsAsFailure: (error) => error instanceof Unwell,
    refusal: () => new Refused('circuit open'),
    onStateChange: (state) => states.push(state),
  });
  return { c, states };
}

const fail = () => Promise.reject(new Unwell('provider down'));
const succeed = () => Promise.resolve('ok');

describe('Circuit (opossum rules, no per-call timers)', () => {
  it('stays closed below the volume threshold, opens above the failure share, and refuses without calling', async () => {
    const { c, states } = circuit();
    for (let i = 0; i < 3; i += 1) await expect(c.guard(fail)).rejects.toBeInstanceOf(Unwell);
    expect(states).toEqual([]);
    await expect(c.guard(fail)).rejects.toBeInstanceOf(Unwell);
    expect(states).toEqual(['open']);
    let called = false;
    await expect(
      c.guard(() => {
        called = true;
        return succeed();
      }),
    ).rejects.toBeInstanceOf(Refused);
    expect(called).toBe(false);
    c.shutdown();
  });

  it('does not count a refusal that says nothing of the callee, and a share at the threshold does not open', async () => {
    const { c, states } = circuit();
    for (let i = 0; i < 6; i += 1) await expect(c.guard(() => Promise.reject(new Error('400')))).rejects.toThrow('400');
    await expect(c.guard(succeed)).resolves.toBe('ok');
    await expect(c.guard(succeed)).resolves.toBe('ok');
    expect(states).toEqual([]);
    c.shutdown();
  });

  it('half-opens after the reset time: one trial, refused others; success closes, failure opens again', async () => {
    const { c, states } = circuit(30);
    for (let i = 0; i < 4; i += 1) await c.guard(fail).catch(() => undefined);
    await sleep(60);
    expect(states).toEqual(['open', 'halfOpen']);
    let release: (value: string) => void = () => undefined;
    const trial = c.guard(() => new Promise<string>((resolve) => (release = resolve)));
    await expect(c.guard(succeed)).rejects.toBeInstanceOf(Refused);
    release('done');
    await expect(trial).resolves.toBe('done');
    expect(states).toEqual(['open', 'halfOpen', 'close']);

    for (let i = 0; i < 10; i += 1) await c.guard(fail).catch(() => undefined);
    await sleep(60);
    await expect(c.guard(fail)).rejects.toBeInstanceOf(Unwell);
    expect(states).toEqual(['open', 'halfOpen', 'close', 'open', 'halfOpen', 'open']);
    c.shutdown();
  });

  it('treats a synchronous throw as a failed call', async () => {
    const { c } = circuit();
    await expect(
      c.guard(() => {
        throw new Unwell('sync');
      }),
    ).rejects.toThrow('sync');
    c.shutdown();
  });
});
