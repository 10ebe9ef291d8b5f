import { requested } from '../../src/disbursements/audit.rules';
import { describeAccount, detailsOf } from '../../src/disbursements/beneficiary.model';
import { CHANNEL_RULES, relayUrlOf } from '../../src/disbursements/channel.rules';
import { newClaim, orphanRecord } from '../../src/disbursements/disbursement.record';
import { DisbursementChannel, DisbursementRequest, PaymentType } from '../../src/disbursements/disbursement.model';

/** Each channel's rule as the places that branch on the channel see it: one row per channel. */
const at = '2026-01-01T00:00:00.000Z';
const bank: DisbursementRequest = {
  channel: 'BANK',
  referenceId: 'ch-bank',
  amount: '10',
  currency: 'ZMW',
  narration: 'invoice',
  accountNumber: '1234567890',
  swiftCode: 'ZNCOZMLU',
  firstName: 'Jane',
  lastName: 'Banda',
  accountHolderName: 'Jane Banda',
  phoneNumber: '260971234567',
  callbackUrl: 'https://client.example/hook',
};
const mobile: DisbursementRequest = {
  channel: 'MOBILE_MONEY',
  referenceId: 'ch-mm',
  amount: '10',
  currency: 'ZMW',
  accountNumber: '260971234567',
};

const rows: {
  channel: DisbursementChannel;
  request: DisbursementRequest;
  paymentType: PaymentType;
  detail: string;
  account: string;
  relayUrl: string | undefined;
  goodNumber: string;
  badNumber: string;
}[] = [
  {
    channel: 'BANK',
    request: bank,
    paymentType: 'BANK',
    detail: 'bank payout to 1234567890',
    account: 'bank ZNCOZMLU ****7890',
    relayUrl: 'https://client.example/hook',
    goodNumber: '1234',
    badNumber: '12-34',
  },
  {
    channel: 'MOBILE_MONEY',
    request: mobile,
    paymentType: 'OTHER',
    detail: 'mobile money payout to 260971234567',
    account: 'mobile money ****4567',
    relayUrl: undefined,
    goodNumber: '260971234567',
    badNumber: '0971234567',
  },
];

describe('channel rules', () => {
  it('has a row here for every channel', () => {
    expect(rows.map((row) => row.channel).sort()).toEqual(Object.values(DisbursementChannel).sort());
  });

  describe.each(rows)('$channel', (row) => {
    it('gives a new claim its payment type', () => {
      expect(newClaim('m', row.request, 'fp', at).paymentType).toBe(row.paymentType);
    });

    it('names the channel in the audit', () => {
      const [asked] = requested(newClaim('m', row.request, 'fp', at), 'alice');
      expect(asked.detail).toBe(row.detail);
      expect(describeAccount(detailsOf(row.request))).toBe(row.account);
    });

    it('relays only where the request names a callbackUrl', () => {
      expect(relayUrlOf(row.request)).toBe(row.relayUrl);
    });

    it('checks the account number shape', () => {
      const rule = CHANNEL_RULES[row.channel].accountNumber;
      expect(rule.pattern.test(row.goodNumber)).toBe(true);
      expect(rule.pattern.test(row.badNumber)).toBe(false);
    });

    it('goes to its own provider endpoint', () => {
      expect(CHANNEL_RULES[row.channel].endpoint).toBe(row.channel);
    });
  });

  const byPaymentType: [PaymentType, DisbursementChannel][] = [
    ['BANK', 'BANK'],
    ['OPERATOR_A_MONEY', 'MOBILE_MONEY'],
    ['OPERATOR_B_MONEY', 'MOBILE_MONEY'],
    ['OPERATOR_C_KWACHA', 'MOBILE_MONEY'],
    ['OTHER', 'MOBILE_MONEY'],
  ];

  it.each(byPaymentType)('takes a payout the provider names by payment type %s as %s', (paymentType, channel) => {
    const answer = { referenceId: 'orphan', status: 'PENDING', providerStatus: 'Pending', paymentType } as const;
    expect(orphanRecord('m', answer, at).channel).toBe(channel);
  });

  it('has a payment type row for every payment type', () => {
    expect(byPaymentType.map(([type]) => type).sort()).toEqual(Object.values(PaymentType).sort());
  });
});
