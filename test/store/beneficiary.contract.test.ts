import { AuditAction, auditEvent, AuditEntry } from '../../src/disbursements/audit.entry';
import { verifyChain } from '../../src/disbursements/audit.verify';
import { Beneficiary } from '../../src/disbursements/beneficiary.model';
import { BeneficiaryWrite } from '../../src/disbursements/disbursement.ports';
import { databasePerTest, describeEngines, StoreUnderTest } from '../support/engines';

/** What every BeneficiaryStore promises, on a database of each test's own of each engine. */
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
let serial = 0;
function beneficiary(over: Partial<Beneficiary> = {}): Beneficiary {
  serial += 1;
  return {
    merchantId: 'merchant-1',
    id: `ben_${serial}`,
    name: `Supplier ${serial}`,
    details: { channel: 'MOBILE_MONEY', accountNumber: `2609710000${String(serial).padStart(2, '0')}` },
    status: 'ACTIVE',
    createdBy: 'alice',
    createdAt: at(serial),
    requesterId: 'token:alice',
    changedAt: at(serial),
    payableFrom: at(serial),
    updatedAt: at(serial),
    ...over,
  };
}
const written = (b: Beneficiary, action: AuditAction = 'BENEFICIARY_CREATED'): BeneficiaryWrite => ({
  beneficiary: b,
  audit: [auditEvent(action, b.updatedAt, { actor: 'alice', detail: `beneficiary ${b.id}` })],
});

describeEngines('BeneficiaryStore', (engine) => {
  const db = databasePerTest(engine);
  let store: StoreUnderTest;
  beforeEach(() => {
    store = db().store();
  });
  const chain = async (merchantId = 'merchant-1') =>
    (await store.auditPage(merchantId, { limit: 1000, filter: {} })).entries;
  async function* listed(entries: AuditEntry[]): AsyncGenerator<AuditEntry> {
    yield* entries;
  }

  it('stores a beneficiary with its audit entry in the chain, kept per merchant', async () => {
    const b = beneficiary();
    expect(await store.insertBeneficiary(written(b))).toEqual({});
    expect(await store.beneficiary('merchant-1', b.id)).toEqual(b);
    expect(await store.beneficiary('merchant-2', b.id)).toBeUndefined();
    const entries = await chain();
    expect(entries.map((e) => e.action)).toEqual(['BENEFICIARY_CREATED']);
    expect(await verifyChain(listed(entries))).toEqual({ count: 1 });
  });

  it('of many concurrent creates of the same account details, stores one; the others get it as the duplicate, with no entry', async () => {
    const same = { channel: 'MOBILE_MONEY' as const, accountNumber: '260971234567' };
    const tries = Array.from({ length: 10 }, () => beneficiary({ details: same }));
    const answers = await Promise.all(tries.map((b) => store.insertBeneficiary(written(b))));
    const stored = tries.filter((_, i) => answers[i].duplicate === undefined);
    expect(stored).toHaveLength(1);
    for (const a of answers) if (a.duplicate) expect(a.duplicate.id).toBe(stored[0].id);
    expect(await chain()).toHaveLength(1);
  });

  it('an archived one is no duplicate; another merchant may hold the same details', async () => {
    const first = beneficiary({ details: { channel: 'MOBILE_MONEY', accountNumber: '260971111111' } });
    await store.insertBeneficiary(written(first));
    await store.updateBeneficiary('merchant-1', first.id, (current) =>
      written({ ...current, status: 'ARCHIVED' }, 'BENEFICIARY_ARCHIVED'),
    );
    expect(await store.insertBeneficiary(written(beneficiary({ details: first.details })))).toEqual({});
    expect(
      await store.insertBeneficiary(written(beneficiary({ merchantId: 'merchant-2', details: first.details }))),
    ).toEqual({});
  });

  it('updates read-modify-write: concurrent changes each see the last one stored, each audited; a refusal stores nothing', async () => {
    const b = beneficiary();
    await store.insertBeneficiary(written(b));
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.updateBeneficiary('merchant-1', b.id, (current) =>
          written({ ...current, name: `${current.name}+` }, 'BENEFICIARY_CHANGED'),
        ),
      ),
    );
    expect((await store.beneficiary('merchant-1', b.id))?.name).toBe(`${b.name}${'+'.repeat(8)}`);
    await expect(
      store.updateBeneficiary('merchant-1', b.id, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    const entries = await chain();
    expect(entries).toHaveLength(9);
    expect(await verifyChain(listed(entries))).toEqual({ count: 9 });
    expect(await store.updateBeneficiary('merchant-2', b.id, () => written(b))).toEqual({});
  });

  it("a change onto an active one's details is refused with that one, nothing stored", async () => {
    const [a, b] = [beneficiary(), beneficiary()];
    await store.insertBeneficiary(written(a));
    await store.insertBeneficiary(written(b));
    const answer = await store.updateBeneficiary('merchant-1', b.id, (current) =>
      written({ ...current, details: a.details }, 'BENEFICIARY_CHANGED'),
    );
    expect(answer.duplicate?.id).toBe(a.id);
    expect(await store.beneficiary('merchant-1', b.id)).toEqual(b);
    expect(await chain()).toHaveLength(2);
  });

  it('of concurrent changes onto the same account details, stores one; the others get it as the duplicate, with no entry', async () => {
    const same = { channel: 'MOBILE_MONEY' as const, accountNumber: '260977654321' };
    const book = Array.from({ length: 6 }, () => beneficiary());
    for (const b of book) await store.insertBeneficiary(written(b));
    const answers = await Promise.all(
      book.map((b) =>
        store.updateBeneficiary('merchant-1', b.id, (current) =>
          written({ ...current, details: same }, 'BENEFICIARY_CHANGED'),
        ),
      ),
    );
    const changed = answers.filter((a) => a.duplicate === undefined);
    expect(changed).toHaveLength(1);
    const winner = changed[0].stored as Beneficiary;
    expect(winner.details).toEqual(same);
    for (const a of answers) if (a.duplicate) expect(a.duplicate.id).toBe(winner.id);
    for (const b of book) if (b.id !== winner.id) expect(await store.beneficiary('merchant-1', b.id)).toEqual(b);
    expect((await chain()).map((e) => e.action)).toEqual([
      ...book.map(() => 'BENEFICIARY_CREATED'),
      'BENEFICIARY_CHANGED',
    ]);
  });

  it('sends an insert as one request and an update as a read and one write (on PostgreSQL one round trip each)', async () => {
    const calls = async (write: () => Promise<unknown>) => {
      const before = store.databaseCalls;
      await write();
      return store.databaseCalls - before;
    };
    const [a, b] = [beneficiary(), beneficiary()];
    expect(await calls(() => store.insertBeneficiary(written(a)))).toBe(1);
    expect(await calls(() => store.insertBeneficiary(written(beneficiary({ details: a.details }))))).toBe(1);
    const rename = (current: Beneficiary) => written({ ...current, name: 'Renamed' }, 'BENEFICIARY_CHANGED');
    expect(await calls(() => store.updateBeneficiary('merchant-1', a.id, rename))).toBe(2);
    await store.insertBeneficiary(written(b));
    const onto = (current: Beneficiary) => written({ ...current, details: a.details }, 'BENEFICIARY_CHANGED');
    expect(await calls(() => store.updateBeneficiary('merchant-1', b.id, onto))).toBe(2);
    expect((await chain()).map((e) => e.sequence)).toEqual([1, 2, 3]);
  });

  it('pages the book oldest first with an exact totalCount under each filter', async () => {
    const book = [
      beneficiary({ name: 'Alpha 100%' }),
      beneficiary({ name: 'beta' }),
      beneficiary({ name: 'Gamma', status: 'AWAITING_APPROVAL' }),
      beneficiary({
        name: 'Delta bank',
        details: {
          channel: 'BANK',
          accountNumber: '1234567890123',
          swiftCode: 'ZNCOZMLU',
          firstName: 'J',
          lastName: 'B',
          accountHolderName: 'J B',
          phoneNumber: '260971234567',
        },
      }),
    ];
    for (const b of book) await store.insertBeneficiary(written(b));
    await store.insertBeneficiary(written(beneficiary({ merchantId: 'merchant-2' })));
    const first = await store.beneficiaries('merchant-1', { limit: 3, filter: {} });
    expect(first).toMatchObject({ totalCount: 4, hasMore: true });
    expect(first.beneficiaries.map((b) => b.id)).toEqual(book.slice(0, 3).map((b) => b.id));
    const last = first.beneficiaries[2];
    const rest = await store.beneficiaries('merchant-1', {
      limit: 3,
      after: { at: Date.parse(last.createdAt), id: last.id },
      filter: {},
    });
    expect(rest).toMatchObject({ totalCount: 4, hasMore: false });
    expect(rest.beneficiaries.map((b) => b.id)).toEqual([book[3].id]);
    const count = async (filter: object) => (await store.beneficiaries('merchant-1', { limit: 10, filter })).totalCount;
    expect(await count({ status: 'AWAITING_APPROVAL' })).toBe(1);
    expect(await count({ channel: 'BANK' })).toBe(1);
    expect(await count({ search: 'ALPHA' })).toBe(1);
    expect(await count({ search: '100%' })).toBe(1);
    expect(await count({ search: '%' })).toBe(1);
    expect(await count({ search: '7890' })).toBe(1);
  });
});
