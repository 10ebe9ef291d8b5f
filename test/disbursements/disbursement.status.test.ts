import { Disbursement, DisbursementStatus } from '../../src/disbursements/disbursement.model';
import { newClaim } from '../../src/disbursements/disbursement.record';
import { applyStatusUpdate } from '../../src/disbursements/disbursement.status';
import { merchant, mobileRequest, providerRecord } from '../support/domain';

const STATUSES: DisbursementStatus[] = ['UNKNOWN', 'PENDING', 'SUCCESSFUL', 'FAILED', 'CANCELLED'];
const FINAL = new Set<DisbursementStatus>(['SUCCESSFUL', 'FAILED', 'CANCELLED']);
const PROVIDER_WORD: Record<DisbursementStatus, string> = {
  // Never said by the provider: only the payout controls hold a payout for approval.
  AWAITING_APPROVAL: 'Pending',
  // Nor these: a scheduled payout waits for its time, and expires unsent, in the gateway only.
  SCHEDULED: 'Pending',
  EXPIRED: 'Cancelled',
  UNKNOWN: 'Reversed',
  PENDING: 'Pending',
  SUCCESSFUL: 'Successful',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

const request = mobileRequest();
const base = newClaim(merchant.id, request, 'fp', '2026-11-22T10:00:00.000Z');
const update = (status: DisbursementStatus, at = '2026-11-22T10:00:01.000Z', deliveryId?: string) => ({
  record: { ...providerRecord(request, PROVIDER_WORD[status]), status },
  source: 'CALLBACK' as const,
  at,
  deliveryId,
});
const recordIn = (status: DisbursementStatus): Disbursement => ({
  ...base,
  sending: false,
  status,
  version: 3,
  identifier: 'MM-1',
});

/** Final states are final; UNKNOWN (an unrecognised provider status) changes nothing; anything else wins. */
const expectedStatus = (from: DisbursementStatus, to: DisbursementStatus) =>
  FINAL.has(from) || to === 'UNKNOWN' ? from : to;

describe('the status rules, for every pair of statuses', () => {
  const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to, expectedStatus(from, to)] as const));

  it.each(pairs)('%s then %s → %s', (from, to, expected) => {
    const current = recordIn(from);
    const next = applyStatusUpdate(current, update(to));
    const after = next ?? current;
    expect(after.status).toBe(expected);
    if (expected !== from) {
      expect(next?.version).toBe(current.version + 1);
      expect(next?.history.at(-1)).toMatchObject({ status: expected, source: 'CALLBACK' });
    } else {
      // No status change: at most the provider's own words are filled in, never a history entry.
      expect(after.history).toEqual(current.history);
    }
    // A repeat of the same update changes nothing, and publishes nothing.
    expect(applyStatusUpdate(after, update(to))).toBeUndefined();
  });
});

describe('duplicates and reordering', () => {
  const orders: DisbursementStatus[][] = [
    ['PENDING', 'SUCCESSFUL'],
    ['SUCCESSFUL', 'PENDING'],
    ['PENDING', 'PENDING', 'FAILED', 'FAILED'],
    ['FAILED', 'PENDING', 'SUCCESSFUL', 'PENDING'],
    ['UNKNOWN', 'PENDING', 'UNKNOWN', 'SUCCESSFUL', 'SUCCESSFUL'],
  ];

  it.each(orders)('%s, … ends at the first final status with one history entry per change', (...sequence) => {
    let record: Disbursement = { ...base, sending: false };
    let published = 0;
    sequence.forEach((status, i) => {
      const next = applyStatusUpdate(record, update(status, `2026-11-22T10:00:0${i + 1}.000Z`));
      if (next) {
        published += 1;
        expect(next.version).toBe(record.version + 1);
        record = next;
      }
    });
    const firstFinal = sequence.find((s) => FINAL.has(s));
    expect(record.status).toBe(firstFinal);
    const statuses = record.history.map((h) => h.status);
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(statuses.at(-1)).toBe(firstFinal);
    expect(published).toBe(record.version);
  });

  it('drops a redelivery with the same webhook-id even when its content is new', () => {
    const first = applyStatusUpdate({ ...base, sending: false }, update('PENDING', undefined, 'msg_1'))!;
    expect(applyStatusUpdate(first, update('SUCCESSFUL', undefined, 'msg_1'))).toBeUndefined();
    expect(applyStatusUpdate(first, update('SUCCESSFUL', undefined, 'msg_2'))?.status).toBe('SUCCESSFUL');
  });
});
