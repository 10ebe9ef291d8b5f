import { LoopWork, WorkLoop } from '../../src/app.loop';

/** A work that records when each round starts, and whose rounds end when the test says. */
function recorder(nextInMs: number) {
  const starts: number[] = [];
  const signals: AbortSignal[] = [];
  let finish: (() => void) | undefined;
  let held = false;
  const work: LoopWork = {
    tick: async (signal) => {
      starts.push(Date.now());
      signals.push(signal);
      if (held) await new Promise<void>((resolve) => (finish = resolve));
      return nextInMs;
    },
  };
  return {
    work,
    starts,
    signals,
    hold: () => (held = true),
    release: () => {
      held = false;
      finish?.();
    },
  };
}

describe('the work loop', () => {
  let loop: WorkLoop;
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    loop = new WorkLoop();
  });
  afterEach(async () => {
    await loop.stop();
    expect(jest.getTimerCount()).toBe(0);
    jest.useRealTimers();
  });

  it('runs each work after its first delay, then as often as its rounds ask, on one timer', async () => {
    const fast = recorder(100);
    const slow = recorder(250);
    loop.add(fast.work, 0);
    loop.add(slow.work, 250);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(520);
    expect(fast.starts).toEqual([0, 100, 200, 300, 400, 500]);
    expect(slow.starts).toEqual([250, 500]);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('brings a round forward on wake, never later than it was due', async () => {
    const work = recorder(1000);
    const entry = loop.add(work.work, 1000);
    await jest.advanceTimersByTimeAsync(100);
    entry.wake(0);
    await jest.advanceTimersByTimeAsync(0);
    expect(work.starts).toEqual([100]);
    entry.wake(5000);
    await jest.advanceTimersByTimeAsync(1000);
    expect(work.starts).toEqual([100, 1100]);
  });

  it('runs a work again right after a round during which it was woken, and never two rounds at once', async () => {
    const work = recorder(1000);
    const entry = loop.add(work.work, 0);
    work.hold();
    await jest.advanceTimersByTimeAsync(0);
    entry.wake(0);
    await jest.advanceTimersByTimeAsync(50);
    expect(work.starts).toEqual([0]);
    work.release();
    await jest.advanceTimersByTimeAsync(0);
    expect(work.starts).toEqual([0, 50]);
  });

  it('stops a work: its round under way is told and awaited, and it runs no more until started again', async () => {
    const work = recorder(100);
    const entry = loop.add(work.work, 100);
    work.hold();
    await jest.advanceTimersByTimeAsync(100);
    let stopped = false;
    const stopping = entry.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(work.signals[0].aborted).toBe(true);
    expect(stopped).toBe(false);
    work.release();
    await stopping;
    entry.wake(0);
    await jest.advanceTimersByTimeAsync(1000);
    expect(work.starts).toEqual([100]);
    expect(jest.getTimerCount()).toBe(0);
    entry.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(work.starts).toEqual([100, 1200]);
    expect(work.signals[1].aborted).toBe(false);
  });

  it('tries a round that failed outright again after its first delay', async () => {
    let rounds = 0;
    loop.add(
      {
        tick: async () => {
          rounds += 1;
          throw new Error('escaped');
        },
      },
      100,
    );
    await jest.advanceTimersByTimeAsync(250);
    expect(rounds).toBe(2);
  });

  it('stops everything at once: rounds under way are awaited, and nothing runs after', async () => {
    const work = recorder(10);
    loop.add(work.work, 0);
    work.hold();
    await jest.advanceTimersByTimeAsync(0);
    const stopping = loop.stop();
    work.release();
    await stopping;
    await jest.advanceTimersByTimeAsync(100);
    expect(work.starts).toEqual([0]);
  });
});
