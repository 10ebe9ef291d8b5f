import { bankInput, CREATE_BANK, CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

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
  ['missing accountNumber', { accountNumber: undefined }, 'input.accountNumber'],
  ['missing currency', { currency: undefined }, 'input.currency'],
  ['unknown field', { iban: 'X' }, 'input.iban'],
  ['blank narration', { narration: '   ' }, 'input.narration'],
];

const bankCases: [string, Record<string, unknown>, string][] = [
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

  it('accepts a JSON number amount and an 11-character swiftCode', async () => {
    const res = await gql(stack.graphqlUrl, CREATE_BANK, {
      input: bankInput({ amount: 10, swiftCode: 'ZNCOZMLUXXX' }),
    });
    expect(res.errors).toBeUndefined();
  });
});
