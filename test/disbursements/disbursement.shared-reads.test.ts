import { Change } from '../../src/disbursements/change-log.feed';
import { Disbursement } from '../../src/disbursements/disbursement.model';
import { LoggedChange } from '../../src/disbursements/disbursement.ports';
import { domain, Domain, merchant, mobileRequest } from '../support/domain';
import { PayoutStore } from '../../src/store/payout.store';

/** How the next change log read is held: its page taken now and answered later, or taken only once let go. */
type Hold = 'answer' | 'read';

/** The domain over the embedded store that counts change log reads and can hold the next one back. */
function counted(): Domain & { reads: () => number; hold: (how: Hold) => () => void } {
  const d = domain();
  const store: PayoutStore = d.store;
  const changesAfter = store.changesAfter.bind(store);
  let reads = 0;
  let gate: { how: Hold; until: Promise<void> } | undefined;
  store.changesAfter = async (merchantId: string, position: string, limit: number): Promise<LoggedChange[]> => {
    reads += 1;
    const held = gate;
    gate = undefined;
    if (held?.how === 'read') await held.until;
    const page = changesAfter(merchantId, position, limit);
    if (held?.how === 'answer') await held.until;
    return page;
  };
  return {
    ...d,
    reads: () => reads,
    hold: (how) => {
      let release = () => {};
      gate = { how, until: new Promise((resolve) => (release = resolve)) };
      return release;
    },
  };
}

/** A live subscriber: the changes it is given, one at a time, and how it leaves. */
interface Subscriber {
  next(): Promise<IteratorResult<Change>>;
  end(): Promise<unknown>;
}

/** `count` disbursementEvents subscribers, each live (listening, its first page read) before this returns. */
async function subscribers(d: Domain, count: number): Promise<Subscriber[]> {
  const live: Promise<void>[] = [];
  const all = await Promise.all(
    Array.from({ length: count }, () => {
      let told = () => {};
      live.push(new Promise((resolve) => (told = resolve)));
      return d.service.changes(merchant, undefined, () => told());
    }),
  );
  // The first next() starts each subscription; it is what the subscriber's first change answers.
  const firsts = all.map((s) => s.next());
  await Promise.all(live);
  await new Promise((r) => setImmediate(r));
  return all.map((s, i) => {
    let first: Promise<IteratorResult<Change>> | undefined = firsts[i];
    return {
      next: () => {
        const answer = first ?? s.next();
        first = undefined;
        return answer;
      },
      end: () => Promise.resolve(s.return?.()),
    };
  });
}

describe('disbursementEvents subscribers of one process share their change log reads', () => {
  it('one change read once for 50 live subscribers, each of whom gets it', async () => {
    const d = counted();
    const all = await subscribers(d, 50);
    const before = d.reads();
    const request = mobileRequest();
    await d.service.create(merchant, request);
    const changes = await Promise.all(all.map((s) => s.next()));
    expect(changes.map((c) => (c.done ? undefined : c.value.record.referenceId))).toEqual(
      Array<string>(50).fill(request.referenceId),
    );
    expect(d.reads() - before).toBe(1);
    await Promise.all(all.map((s) => s.end()));
  });

  it('a change a page already sent costs no read when its own bell rings', async () => {
    const d = counted();
    const [subscriber] = await subscribers(d, 1);
    const [first, second] = [mobileRequest(), mobileRequest()];
    // The read the first change sets off is taken only after the second change is logged: one page has both.
    const release = d.hold('read');
    await d.service.create(merchant, first);
    await new Promise((r) => setImmediate(r));
    await d.service.create(merchant, second);
    const before = d.reads();
    release();
    const refs = [(await subscriber.next()).value, (await subscriber.next()).value].map(
      (c: Change | undefined) => c?.record.referenceId,
    );
    expect(refs).toEqual([first.referenceId, second.referenceId]);
    // Asking for more lets the subscriber go on to the second change's bell, which finds it sent.
    const third = subscriber.next();
    for (let i = 0; i < 10; i += 1) await new Promise((r) => setImmediate(r));
    expect(d.reads() - before).toBe(0);
    await subscriber.end();
    await expect(third).resolves.toEqual({ done: true, value: undefined });
  });

  it('a subscriber woken by a change logged after the shared read it joined began reads again, and misses nothing', async () => {
    const d = counted();
    const [early] = await subscribers(d, 1);
    // A bell with nothing new in the log (a publish that logs nothing): `early` starts a shared read,
    // which takes its page now and is held.
    const release = d.hold('answer');
    await d.events.publish({ merchantId: merchant.id, referenceId: 'never-logged', version: 1 } as Disbursement);
    await new Promise((r) => setImmediate(r));
    // `late` subscribes after that bell; then a change is logged and rings both.
    const [late] = await subscribers(d, 1);
    const request = mobileRequest();
    await d.service.create(merchant, request);
    await new Promise((r) => setImmediate(r));
    release();
    // `late` joined the held read, whose page predates the change: it must read again on its own.
    const refsOf = async (s: Subscriber, count: number) => {
      const refs: string[] = [];
      while (refs.length < count) refs.push((await s.next()).value?.record.referenceId as string);
      return refs;
    };
    expect(await refsOf(late, 1)).toEqual([request.referenceId]);
    expect(await refsOf(early, 1)).toEqual([request.referenceId]);
    await Promise.all([early.end(), late.end()]);
  });
});
