import { Disbursement } from '../../src/disbursements/disbursement.model';
import { packRecord, unpackRecord } from '../../src/store/memory.compact';
import { MemoryStore } from '../../src/store/memory.store';
import { record } from './store.contract';

/** What JSON gives back: the record as a reader of the Redis store would see it. */
const viaJson = (r: unknown): unknown => JSON.parse(JSON.stringify(r));

const settled = (overrides: Partial<Disbursement> = {}): Disbursement => {
  const base = record({
    status: 'SUCCESSFUL',
    providerStatus: 'Successful',
    narration: 'Salary',
    identifier: 'id-1',
    ...overrides,
  });
  return {
    ...base,
    fingerprint: 'fp-abc',
    requestId: 'req-1',
    createdAt: '2026-01-01T00:00:00.000Z',
    history: [
      { status: 'PENDING', providerStatus: 'Pending', source: 'CREATE', at: '2026-01-01T00:00:00.000Z' },
      { status: 'SUCCESSFUL', message: 'paid', source: 'CALLBACK', at: '2026-01-01T00:00:01.000Z' },
    ],
    deliveryIds: ['msg_1'],
    ...overrides,
  };
};

describe('memory store packing of settled records', () => {
  const cases: [string, Disbursement][] = [
    (() => {
      const r = settled();
      return [
        'a mobile money payout whose request repeats its fields',
        {
          ...r,
          request: {
            channel: 'MOBILE_MONEY',
            referenceId: r.referenceId,
            amount: r.amount,
            currency: r.currency,
            accountNumber: r.accountNumber,
            narration: 'Salary',
          },
        },
      ] as [string, Disbursement];
    })(),
    (() => {
      const r = settled({ narration: undefined });
      return [
        'one without narration',
        {
          ...r,
          request: {
            channel: 'MOBILE_MONEY',
            referenceId: r.referenceId,
            amount: '150.750',
            currency: r.currency,
            accountNumber: r.accountNumber,
          },
        },
      ] as [string, Disbursement];
    })(),
    [
      'a bank payout with a relay audit',
      settled({
        channel: 'BANK',
        paymentType: 'BANK',
        request: {
          channel: 'BANK',
          referenceId: 'bank-1',
          amount: '10',
          currency: 'ZMW',
          narration: 'n',
          accountNumber: '1234',
          swiftCode: 'ABCDZMLU',
          firstName: 'A',
          lastName: 'B',
          accountHolderName: 'A B',
          phoneNumber: '260971234567',
          callbackUrl: 'https://client.example/cb',
        },
        relay: {
          url: 'https://client.example/cb',
          delivered: false,
          gaveUp: true,
          attempts: [
            { at: '2026-01-01T00:00:02.000Z', status: 500 },
            { at: '2026-01-01T00:00:03.000Z', error: 'timeout' },
          ],
        },
      }),
    ],
    ['an orphan with no request', settled({ request: undefined, fingerprint: undefined, sending: false })],
    [
      'one carrying a field this file does not know, and a history event with one',
      {
        ...settled(),
        approvedBy: 'ops-1',
        history: [{ status: 'SUCCESSFUL', source: 'CALLBACK', at: '2026-01-01T00:00:01.000Z', note: 'x' }],
      } as unknown as Disbursement,
    ],
  ];

  it.each(cases)('gives back exactly what JSON would: %s', (_name, r) => {
    const text = packRecord(r);
    expect(unpackRecord(text)).toStrictEqual(viaJson(r));
    expect(text.length).toBeLessThan(JSON.stringify(r).length);
  });

  it('hands each reader its own record: changing one changes nothing stored', async () => {
    const store = new MemoryStore();
    const r = settled();
    await store.insertIfAbsent(r);
    const read = await store.get(r.merchantId, r.referenceId);
    read?.history.push({ status: 'FAILED', source: 'CALLBACK', at: '2026-01-01T00:00:09.000Z' });
    if (read?.history[0]) read.history[0].status = 'FAILED';
    expect(await store.get(r.merchantId, r.referenceId)).toStrictEqual(viaJson(r));
  });
});
