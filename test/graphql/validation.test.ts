import { bankInput, CREATE_BANK, CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

/** Letters and digits, as many banks write an account: the provider takes digits only. */
const IBAN = 'GB82WEST12345698765432';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const mobileCases: [string, Record<string, unknown>, string][] = [
  ['empty referenceId', { referenceId: '' }, 'input.referenceId'],
  ['65-character referenceId', { referenceId: 'x'.repeat(65) }, 'input.referenceId'],
  ['referenceId with a control character', { referenceId: 'ab\u0007c' }, 'input.referenceId'],
  ['zero amount', { amount: '0' }, 'input.amount'],
  ['negative amount', { amount: '-5' }, 'input.amount'],
  ['three decimals', { amount: '1.005' }, 'input.amount'],
  ['amount that is not a number', { amount: 'abc' }, 'input.amount'],
  ['amount as a boolean', { amount: true }, 'input.amount'],
  ['huge amount', { amount: '12345678901234567' }, 'input.amount'],
  ['lower-case currency', { currency: 'zmw' }, 'input.currency'],
  ['four-letter currency', { currency: 'ZMWX' }, 'input.currency'],
  ['letters in the account', { accountNumber: '26097ABC4567' }, 'input.accountNumber'],
  ['a number without the country code', { accountNumber: '0971234567' }, 'input.accountNumber'],
  ['eleven digits', { accountNumber: '26097123456' }, 'input.accountNumber'],
  ['a number with spaces', { accountNumber: '260 97 1234567' }, 'input.accountNumber'],
  ['missing accountNumber', { accountNumber: undefined }, 'input.accountNumber'],
  ['missing currency', { currency: undefined }, 'input.currency'],
  ['unknown field', { iban: 'X' }, 'input.iban'],
  ['blank narration', { narration: '   ' }, 'input.narration'],
];

const bankCases: [string, Record<string, unknown>, string][] = [
  ['an IBAN-like account number', { accountNumber: IBAN }, 'input.accountNumber'],
  ['an account number with a dash', { accountNumber: '0012-345678' }, 'input.accountNumber'],
  ['a 3-digit account number', { accountNumber: '123' }, 'input.accountNumber'],
  ['a 35-digit account number', { accountNumber: '1'.repeat(35) }, 'input.accountNumber'],
  ['swiftCode of 9 characters', { swiftCode: 'ZNCOZMLU1' }, 'input.swiftCode'],
  ['phone with separators', { phoneNumber: '+260 97 1234567' }, 'input.phoneNumber'],
  ['short phone', { phoneNumber: '1234' }, 'input.phoneNumber'],
  ['bad email', { email: 'not-an-address' }, 'input.email'],
  ['empty firstName', { firstName: '' }, 'input.firstName'],
  ['empty lastName', { lastName: '' }, 'input.lastName'],
  ['empty accountHolderName', { accountHolderName: '' }, 'input.accountHolderName'],
  ['empty narration', { narration: '' }, 'input.narration'],
  ['callbackUrl that is not a URL', { callbackUrl: 'javascript:alert(1)' }, 'input.callbackUrl'],
  ['missing swiftCode', { swiftCode: undefined }, 'input.swiftCode'],
];

function withOverrides(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const input = { ...base, ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete input[k];
  return input;
}

async function expectRejected(query: string, input: Record<string, unknown>, field: string) {
  const before = stack.sandbox.stats().createRequests;
  const res = await gql(stack.graphqlUrl, query, { input });
  expect(res.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  expect(res.errors?.[0].extensions?.fields).toEqual([field]);
  expect(res.errors?.[0].message).toContain(field.replace(/^input\./, ''));
  expect(stack.sandbox.stats().createRequests).toBe(before);
}

describe('input validation at the edge', () => {
  it.each(mobileCases)('mobile money: %s is refused naming the field, nothing sent', (_name, overrides, field) =>
    expectRejected(CREATE_MOBILE, withOverrides(mobileInput(), overrides), field),
  );

  it.each(bankCases)('bank: %s is refused naming the field, nothing sent', (_name, overrides, field) =>
    expectRejected(CREATE_BANK, withOverrides(bankInput(), overrides), field),
  );

  it('names every bad field at once', async () => {
    const res = await gql(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ amount: '0', currency: 'zz', swiftCode: 'X' }),
    });
    expect(res.errors?.[0].extensions?.fields).toEqual(['input.amount', 'input.currency', 'input.swiftCode']);
  });

  it('names the item of a batch whose account number has letters, and sends only the others', async () => {
    const inputs = Array.from({ length: 5 }, (_, i) => bankInput(i === 3 ? { accountNumber: IBAN } : {}));
    const res = await gql<{ createBankDisbursements: { error: { code: string; fields: string[] } | null }[] }>(
      stack.graphqlUrl,
      `mutation ($inputs: [BankDisbursementInput!]!) { createBankDisbursements(inputs: $inputs) { error { code fields } } }`,
      { inputs },
    );
    expect(res.data?.createBankDisbursements.map((r) => r.error)).toEqual([
      null,
      null,
      null,
      { code: 'BAD_USER_INPUT', fields: ['inputs.3.accountNumber'] },
      null,
    ]);
    const sent = stack.sandbox.stats().createRequestsByReferenceId;
    expect(inputs.map((input) => sent[String(input.referenceId)] ?? 0)).toEqual([1, 1, 1, 0, 1]);
  });

  it.each([
    ['4', '1234'],
    ['34', '0012345678'.padStart(34, '0')],
  ])('sends a bank account number of %s digits, which the provider accepts', async (_digits, accountNumber) => {
    const res = await gql<{ createBankDisbursement: { status: string } }>(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ accountNumber }),
    });
    expect(res.errors).toBeUndefined();
    expect(res.data?.createBankDisbursement.status).toBe('PENDING');
  });

  it('accepts a JSON number amount and an 11-character swiftCode', async () => {
    const res = await gql(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ amount: 10, swiftCode: 'ZNCOZMLUXXX' }),
    });
    expect(res.errors).toBeUndefined();
  });
});
