import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { parseProviderRecord } from '../../src/upstream/provider.record';
import { launchGateway } from '../support/process';
import { CREATE_MOBILE, DISBURSEMENT_FIELDS, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

describe('the real provider names operators AirtelMoney, MtnMoney and ZamtelKwacha', () => {
  it.each([
    ['AirtelMoney', 'OPERATOR_A_MONEY'],
    ['airtelmoney', 'OPERATOR_A_MONEY'],
    ['MtnMoney', 'OPERATOR_B_MONEY'],
    ['MTNMoney', 'OPERATOR_B_MONEY'],
    ['ZamtelKwacha', 'OPERATOR_C_KWACHA'],
    ['ZAMTELKWACHA', 'OPERATOR_C_KWACHA'],
    ['OperatorAMoney', 'OPERATOR_A_MONEY'],
    ['Card', 'OTHER'],
    ['toString', 'OTHER'],
  ])('%s reads as %s, and the raw name is kept', (raw, expected) => {
    const record = parseProviderRecord({ referenceId: 'r-1', status: 'Successful', paymentType: raw });
    expect(record).toMatchObject({ paymentType: expected, providerPaymentType: raw });
  });
});

describe('a gateway against a provider that answers in its real shapes', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      sandbox: { providerShapes: true, settleMs: 100 },
      env: { WALLET_BALANCE_CACHE_MS: '0' },
    });
  });
  afterAll(() => stack.close());

  const read = async (referenceId: string) =>
    (await gql<{ disbursement: PayoutRow }>(stack.graphqlUrl, QUERY, { referenceId })).data!.disbursement;

  it.each([
    ['260971234567', 'OPERATOR_A_MONEY', 'AirtelMoney'],
    ['260961234567', 'OPERATOR_B_MONEY', 'MtnMoney'],
    ['260951234567', 'OPERATOR_C_KWACHA', 'ZamtelKwacha'],
  ])(
    'a mobile money payout to %s shows %s (provider says %s), through to its final status',
    async (accountNumber, type, raw) => {
      const input = mobileInput({ accountNumber });
      const res = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(res.errors).toBeUndefined();
      expect(res.data!.createMobileMoneyDisbursement).toMatchObject({
        paymentType: type,
        providerPaymentType: raw,
        status: 'PENDING',
      });
      const settled = await eventually(async () => {
        const record = await read(input.referenceId as string);
        return record.status === 'SUCCESSFUL' ? record : undefined;
      });
      expect(settled).toMatchObject({ paymentType: type, providerPaymentType: raw });
    },
  );

  /** A payout the sandbox never settles (account ending 222): the test delivers the provider's callbacks itself. */
  async function quietPayout(): Promise<string> {
    const input = mobileInput({ accountNumber: '260771234222' });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors).toBeUndefined();
    return input.referenceId as string;
  }

  /** The flat record the provider posts, as its docs show it. */
  const flat = (referenceId: string, status: string) => ({
    referenceId,
    currency: 'ZMW',
    amount: 150.75,
    accountNumber: '260771234222',
    status,
    paymentType: 'AirtelMoney',
    type: 'Disbursement',
    ipAddress: '102.23.45.6',
    identifier: 'MM-20260101-1',
    message: status === 'Failed' ? 'Insufficient funds at operator' : 'Transaction successful',
    externalId: status === 'Successful' ? 'MP260101.1234.A56789' : null,
  });

  async function deliver(body: unknown): Promise<number> {
    const raw = JSON.stringify(body);
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const res = await fetch(stack.gateway.callbackUrl('default'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(stack.webhookSecret).sign(id, at, raw),
      },
      body: raw,
    });
    return res.status;
  }

  it('applies the flat callback record', async () => {
    const referenceId = await quietPayout();
    expect(await deliver(flat(referenceId, 'Successful'))).toBe(200);
    expect(await read(referenceId)).toMatchObject({
      status: 'SUCCESSFUL',
      paymentType: 'OPERATOR_A_MONEY',
      providerPaymentType: 'AirtelMoney',
      externalId: 'MP260101.1234.A56789',
    });
  });

  it('applies the record wrapped in the {type, data} envelope of the signing example', async () => {
    const referenceId = await quietPayout();
    expect(await deliver({ type: 'transaction.completed', data: flat(referenceId, 'Failed') })).toBe(200);
    expect(await read(referenceId)).toMatchObject({ status: 'FAILED', paymentType: 'OPERATOR_A_MONEY' });
  });

  it('reads the balance body {success, message, data: {balance}} that carries no currency', async () => {
    const res = await gql<{ walletBalance: { amount: string; currency: string | null } }>(
      stack.graphqlUrl,
      'query { walletBalance { amount currency } }',
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.walletBalance.amount).toMatch(/^\d+(\.\d+)?$/);
    expect(res.data!.walletBalance.currency).toBeNull();
  });
});

describe('npm start with SANDBOX_PROVIDER_SHAPES=true', () => {
  it('shows OPERATOR_A_MONEY for a 26097 number the embedded sandbox names AirtelMoney', async () => {
    const gateway = await launchGateway({
      PORT: '0',
      SANDBOX_PORT: '0',
      SANDBOX_SETTLE_MS: '100',
      SANDBOX_PROVIDER_SHAPES: 'true',
    });
    try {
      const res = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(gateway.graphqlUrl, CREATE_MOBILE, {
        input: mobileInput({ accountNumber: '260971234567' }),
      });
      expect(res.data?.createMobileMoneyDisbursement).toMatchObject({
        paymentType: 'OPERATOR_A_MONEY',
        providerPaymentType: 'AirtelMoney',
      });
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});
