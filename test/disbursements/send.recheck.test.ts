import { AuditEntry } from '../../src/disbursements/audit.entry';
import { Disbursement, DisbursementRequest } from '../../src/disbursements/disbursement.model';
import { Merchant } from '../../src/disbursements/disbursement.ports';
import { Actor, PayoutControls } from '../../src/disbursements/payout.controls';
import { Domain, domain } from '../support/domain';

/**
 * What is checked again before a payout decided earlier is sent (send.recheck.ts), on the real domain
 * and embedded store with the fake provider, through both paths that send later: a second person's
 * approval of a held payout, and the due step of a scheduled one. Each case changes something behind
 * the payout between its decision and its send, the way nothing in the gateway's own flow would (the
 * book written through its port, without archive's sweep; the record rewritten through the store):
 * the re-check alone must stop it.
 */
const T0 = Date.parse('2026-11-27T08:00:00Z');
const alice: Actor = { id: 'token:alice', name: 'alice' };
const bob: Actor = { id: 'bob', name: 'bob' };
const loose: PayoutControls = { approvalAbove: { ZMW: '100' }, approvalTtlSeconds: 86_400 };
const merchantWith = (controls: PayoutControls): Merchant => ({ id: 'm-recheck', apiKey: 'key', controls });

interface Setup {
  d: Domain;
  clock: { at: number };
}
function setup(): Setup {
  const clock = { at: T0 };
  return { d: domain({ now: () => new Date(clock.at) }), clock };
}

type Path = 'approval' | 'due step';
/** A payout waiting on that path: held above approvalAbove, or scheduled an hour ahead below it. */
async function waiting(s: Setup, path: Path, beneficiaryId: string, m: Merchant): Promise<Disbursement> {
  const referenceId = `${path === 'approval' ? 'held' : 'sched'}-${beneficiaryId.slice(-6)}-${s.clock.at}`;
  const amount = path === 'approval' ? '500' : '50';
  const sendAt = path === 'due step' ? new Date(T0 + 3_600_000).toISOString() : undefined;
  return s.d.service.payBeneficiary(
    m,
    {
      beneficiaryId,
      referenceId,
      build: (details): DisbursementRequest => ({
        ...(details as { channel: 'MOBILE_MONEY'; accountNumber: string }),
        referenceId,
        amount,
        currency: 'ZMW',
        ...(sendAt && { sendAt }),
      }),
    },
    undefined,
    alice,
  );
}

/** The approval, or one round of the due loop an hour later; the error code, if any. */
async function sendLater(s: Setup, path: Path, record: Disbursement, m: Merchant): Promise<string | undefined> {
  if (path === 'approval')
    return s.d.service.approve(m, record.referenceId, bob).then(
      () => undefined,
      (error: { code?: string }) => error.code,
    );
  s.clock.at = T0 + 3_600_000;
  for (const due of await s.d.store.due(new Date(s.clock.at), 100)) {
    const taken = await s.d.service.lease(due, new Date(s.clock.at + 30_000));
    if (taken) await s.d.service.runDue(m, taken);
  }
  return undefined;
}

const stored = async (s: Setup, m: Merchant, r: Disbursement) =>
  (await s.d.store.get(m.id, r.referenceId)) as Disbursement;
const actions = async (s: Setup, m: Merchant, r: Disbursement) =>
  (await s.d.service.auditTrail(m, { first: 100, filter: { referenceId: r.referenceId } })).entries.map(
    (e: AuditEntry) => e.action,
  );

interface Case {
  name: string;
  /** What happens behind the payout between its decision and its send. */
  meanwhile: (s: Setup, m: Merchant, beneficiaryId: string, r: Disbursement) => Promise<void>;
  /** The controls when it is sent (default: as when it was made). */
  later?: PayoutControls;
  approval?: { code: string; status: string; action?: string };
  due: { status: string; action?: string };
}

const CASES: Case[] = [
  {
    name: 'its beneficiary archived (written to the book, no sweep)',
    meanwhile: async (s, m, id) => {
      await s.d.store.updateBeneficiary(m.id, id, (b) => ({ beneficiary: { ...b, status: 'ARCHIVED' }, audit: [] }));
    },
    approval: { code: 'INVALID_STATE', status: 'CANCELLED', action: 'CANCELLED' },
    due: { status: 'CANCELLED', action: 'CANCELLED' },
  },
  {
    name: "its beneficiary's new details awaiting approval",
    meanwhile: async (s, m, id) => {
      await s.d.store.updateBeneficiary(m.id, id, (b) => ({
        beneficiary: { ...b, status: 'AWAITING_APPROVAL' },
        audit: [],
      }));
    },
    approval: { code: 'INVALID_STATE', status: 'AWAITING_APPROVAL' },
    due: { status: 'SCHEDULED' },
  },
  {
    name: 'its account rewritten in the stored record',
    meanwhile: async (s, m, _id, r) => {
      await s.d.store.update(m.id, r.referenceId, (current) => ({
        ...current,
        accountNumber: '260979999999',
        request: { ...(current.request as DisbursementRequest), accountNumber: '260979999999' },
      }));
    },
    approval: { code: 'INVALID_STATE', status: 'CANCELLED', action: 'SEND_REFUSED' },
    due: { status: 'CANCELLED', action: 'SEND_REFUSED' },
  },
  {
    name: 'its seal removed from the stored record',
    meanwhile: async (s, m, _id, r) => {
      await s.d.store.update(m.id, r.referenceId, (current) => ({ ...current, seal: undefined }));
    },
    approval: { code: 'INVALID_STATE', status: 'CANCELLED', action: 'SEND_REFUSED' },
    due: { status: 'CANCELLED', action: 'SEND_REFUSED' },
  },
  {
    name: 'its time moved later in the stored record',
    meanwhile: async (s, m, _id, r) => {
      await s.d.store.update(m.id, r.referenceId, (current) => ({
        ...current,
        sendAt: new Date(T0 + 86_400_000).toISOString(),
      }));
    },
    approval: { code: 'INVALID_STATE', status: 'CANCELLED', action: 'SEND_REFUSED' },
    due: { status: 'CANCELLED', action: 'SEND_REFUSED' },
  },
  {
    name: 'maxAmount lowered below it',
    meanwhile: async () => undefined,
    later: { ...loose, maxAmount: { ZMW: '10' } },
    approval: { code: 'INVALID_STATE', status: 'CANCELLED', action: 'LIMIT_REFUSED' },
    due: { status: 'CANCELLED', action: 'LIMIT_REFUSED' },
  },
  {
    name: 'approvalAbove lowered below it',
    meanwhile: async () => undefined,
    later: { ...loose, approvalAbove: { ZMW: '10' } },
    due: { status: 'AWAITING_APPROVAL', action: 'HELD' },
  },
];

describe.each<Path>(['approval', 'due step'])('checked again at its %s', (path) => {
  const cases = CASES.filter((c) => (path === 'approval' ? c.approval : c.due));
  it.each(cases.map((c) => [c.name, c] as const))('%s: never sent', async (_name, c) => {
    const s = setup();
    const m = merchantWith(loose);
    const ben = await s.d.service.createBeneficiary(
      m,
      { name: 'Supplier', details: { channel: 'MOBILE_MONEY', accountNumber: '260971311567' } },
      alice,
    );
    const record = await waiting(s, path, ben.id, m);
    expect(record.status).toBe(path === 'approval' ? 'AWAITING_APPROVAL' : 'SCHEDULED');
    await c.meanwhile(s, m, ben.id, record);
    const atSend = merchantWith(c.later ?? loose);
    const code = await sendLater(s, path, record, atSend);
    const expected = path === 'approval' ? c.approval : c.due;
    if (path === 'approval') expect(code).toBe(c.approval?.code);
    expect((await stored(s, m, record)).status).toBe(expected?.status);
    expect(s.d.provider.creates).toHaveLength(0);
    if (expected?.action) expect(await actions(s, m, record)).toContain(expected.action);
  });

  it('nothing changed: sent once, to the account requested', async () => {
    const s = setup();
    const m = merchantWith(loose);
    const ben = await s.d.service.createBeneficiary(
      m,
      { name: 'Supplier', details: { channel: 'MOBILE_MONEY', accountNumber: '260971311567' } },
      alice,
    );
    const record = await waiting(s, path, ben.id, m);
    expect(await sendLater(s, path, record, m)).toBeUndefined();
    expect(s.d.provider.creates.map((c) => c.accountNumber)).toEqual(['260971311567']);
  });
});

describe('the approvers’ queue', () => {
  it('leaves out a held payout whose record differs from its keyed request', async () => {
    const s = setup();
    const m = merchantWith(loose);
    const ben = await s.d.service.createBeneficiary(
      m,
      { name: 'Supplier', details: { channel: 'MOBILE_MONEY', accountNumber: '260971311567' } },
      alice,
    );
    const honest = await waiting(s, 'approval', ben.id, m);
    s.clock.at += 1;
    const edited = await waiting(s, 'approval', ben.id, m);
    await CASES[2].meanwhile(s, m, ben.id, edited);
    const queue = await s.d.service.history(m, { first: 10, filter: { statuses: ['AWAITING_APPROVAL'] } });
    expect(queue.entries.map((e) => e.record.referenceId)).toEqual([honest.referenceId]);
    expect(queue.totalCount).toBe(1);
  });
});

describe('a payout held only at its time', () => {
  it('is not approvable by its requester (FORBIDDEN); another person’s approval sends it once', async () => {
    const s = setup();
    const m = merchantWith({ approvalTtlSeconds: 86_400 });
    const ben = await s.d.service.createBeneficiary(
      m,
      { name: 'Supplier', details: { channel: 'MOBILE_MONEY', accountNumber: '260971311567' } },
      { id: 'token:alice', name: 'alice' },
    );
    const record = await waiting(s, 'due step', ben.id, m);
    const tightened = merchantWith({ ...loose, approvalAbove: { ZMW: '10' } });
    await sendLater(s, 'due step', record, tightened);
    expect((await stored(s, m, record)).status).toBe('AWAITING_APPROVAL');
    const own = await s.d.service.approve(tightened, record.referenceId, alice).catch((e: { code: string }) => e.code);
    expect(own).toBe('FORBIDDEN');
    await s.d.service.approve(tightened, record.referenceId, bob);
    expect(s.d.provider.creates.map((c) => c.referenceId)).toEqual([record.referenceId]);
  });
});

describe('an approval of a row edited behind it', () => {
  async function held(s: Setup, m: Merchant, sendAt?: string): Promise<Disbursement> {
    const ben = await s.d.service.createBeneficiary(
      m,
      { name: 'Supplier', details: { channel: 'MOBILE_MONEY', accountNumber: '260971311567' } },
      alice,
    );
    const referenceId = `held-${s.clock.at}`;
    const record = await s.d.service.payBeneficiary(
      m,
      {
        beneficiaryId: ben.id,
        referenceId,
        build: (details): DisbursementRequest => ({
          ...(details as { channel: 'MOBILE_MONEY'; accountNumber: string }),
          referenceId,
          amount: '500',
          currency: 'ZMW',
          ...(sendAt && { sendAt }),
        }),
      },
      undefined,
      alice,
    );
    expect(record.status).toBe('AWAITING_APPROVAL');
    return record;
  }

  it('its approval naming someone else as requester: its requester still cannot approve it (FORBIDDEN), nothing sent', async () => {
    const s = setup();
    const m = merchantWith(loose);
    const record = await held(s, m);
    await s.d.store.update(m.id, record.referenceId, (current) => ({
      ...current,
      approval: { ...current.approval!, requesterId: 'token:someone-else' },
    }));
    const own = await s.d.service.approve(m, record.referenceId, alice).catch((e: { code: string }) => e.code);
    expect(own).toBe('FORBIDDEN');
    expect((await stored(s, m, record)).status).toBe('AWAITING_APPROVAL');
    expect(s.d.provider.creates).toHaveLength(0);
  });

  it('its time removed from the row: approved, it waits for the time its request asked for (SCHEDULED), not sent', async () => {
    const s = setup();
    const m = merchantWith(loose);
    const sendAt = new Date(T0 + 3_600_000).toISOString();
    const record = await held(s, m, sendAt);
    await s.d.store.update(m.id, record.referenceId, (current) => ({ ...current, sendAt: undefined }));
    await s.d.service.approve(m, record.referenceId, bob);
    const after = await stored(s, m, record);
    expect(after.status).toBe('SCHEDULED');
    expect(after.sendAt).toBe(sendAt);
    expect(s.d.provider.creates).toHaveLength(0);
  });
});
