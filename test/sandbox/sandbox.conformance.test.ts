import { startSandbox, type SandboxHandle } from '../../src/sandbox/sandbox.server';
import {
  BANK,
  MOBILE,
  STATUS,
  bankBody,
  call,
  checkStatus,
  create,
  expectVanished,
  mobileBody,
  newRef,
  waitFor,
  type Json,
} from './sandbox.client';

const SETTLE_MS = 100;
const BANK_IDENTIFIER = /^BNK-\d{8}-\d{6}-\d{6}$/;
const MOBILE_IDENTIFIER = /^MM-\d{14}-\d{5}$/;
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const PENDING_KEYS = [
  'referenceId',
  'amount',
  'currency',
  'accountNumber',
  'status',
  'type',
  'paymentType',
  'ipAddress',
  'identifier',
  'narration',
  'externalId',
  'createdAt',
];
const FAILED_KEYS = [
  'referenceId',
  'amount',
  'currency',
  'accountNumber',
  'status',
  'type',
  'paymentType',
  'ipAddress',
  'identifier',
  'message',
];

let sandbox: SandboxHandle;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    settleMs: SETTLE_MS,
    rateLimitPerMin: 0,
    activeKeys: ['sandbox-key', 'second-key'],
    slowCreateMs: 1500,
  });
  base = sandbox.url;
});

afterAll(() => sandbox.close());

const statusOf = async (referenceId: string): Promise<Json | undefined> => (await checkStatus(base, referenceId)).json;

describe('bank create', () => {
  it('answers 200 with a Pending record carrying every field of spec 2.3', async () => {
    const body = bankBody({ amount: 150.75 });
    const res = await create(base, BANK, body);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const record = res.json!;
    expect(Object.keys(record)).toEqual(PENDING_KEYS);
    expect(record).toEqual({
      referenceId: body.referenceId,
      amount: 150.75,
      currency: 'ZMW',
      accountNumber: '0012345678',
      status: 'Pending',
      type: 'Disbursement',
      paymentType: 'Bank',
      ipAddress: '127.0.0.1',
      identifier: expect.stringMatching(BANK_IDENTIFIER),
      narration: 'Supplier payout',
      externalId: null,
      createdAt: expect.stringMatching(CREATED_AT),
    });
    expect(Number.isNaN(Date.parse(record.createdAt as string))).toBe(false);
  });

  it('accepts a numeric string amount and echoes it as a number', async () => {
    const res = await create(base, BANK, bankBody({ amount: '99.5' }));
    expect(res.status).toBe(200);
    expect(res.json?.amount).toBe(99.5);
  });

  it('gives every record its own identifier', async () => {
    const [a, b] = await Promise.all([create(base, BANK, bankBody()), create(base, BANK, bankBody())]);
    expect(a.json?.identifier).not.toEqual(b.json?.identifier);
  });

  it('ignores unknown fields', async () => {
    const res = await create(base, BANK, bankBody({ somethingElse: { nested: true } }));
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('somethingElse');
  });
});

describe('mobile money create', () => {
  it.each([
    ['260971234567', 'OperatorAMoney'],
    ['260771234567', 'OperatorAMoney'],
    ['260961234567', 'OperatorBMoney'],
    ['260761234567', 'OperatorBMoney'],
    ['260951234567', 'OperatorCKwacha'],
    ['260751234567', 'OperatorCKwacha'],
  ])('derives the operator of %s as %s', async (accountNumber, paymentType) => {
    const body = mobileBody({ accountNumber });
    const res = await create(base, MOBILE, body);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json!)).toEqual(PENDING_KEYS);
    expect(res.json).toEqual({
      referenceId: body.referenceId,
      amount: 20,
      currency: 'ZMW',
      accountNumber,
      status: 'Pending',
      type: 'Disbursement',
      paymentType,
      ipAddress: '127.0.0.1',
      identifier: expect.stringMatching(MOBILE_IDENTIFIER),
      narration: 'Airtime refund',
      externalId: null,
      createdAt: expect.stringMatching(CREATED_AT),
    });
  });

  it('leaves narration out when the request has none', async () => {
    const { narration: _omitted, ...body } = mobileBody();
    const res = await create(base, MOBILE, body);
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('narration');
    expect(res.json).toMatchObject({ status: 'Pending', externalId: null });
  });
});

describe('account ending in 111', () => {
  it.each([
    ['bank', BANK, bankBody({ accountNumber: '0012345111' })],
    ['mobile money', MOBILE, mobileBody({ accountNumber: '260971234111' })],
  ])('creates a %s payout as Failed at once, without createdAt, externalId or narration', async (_name, path, body) => {
    const res = await create(base, path, body);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json!)).toEqual(FAILED_KEYS);
    expect(res.json).toMatchObject({ status: 'Failed', type: 'Disbursement', referenceId: body.referenceId });
    expect(res.json?.message).toEqual(expect.stringMatching(/\S/));
    // Stored as created, and never settled into anything else: an ordinary payout created after it settles one
    // settle period later, and settle timers run in the order they were set.
    const later = mobileBody();
    await create(base, MOBILE, later);
    await waitFor('a later payout to settle', async () =>
      (await statusOf(later.referenceId as string))?.status === 'Successful' ? true : undefined,
    );
    expect(await statusOf(body.referenceId as string)).toEqual(res.json);
  });
});

describe('validation', () => {
  const bankRequired = [
    'referenceId',
    'amount',
    'currency',
    'narration',
    'accountNumber',
    'swiftCode',
    'firstName',
    'lastName',
    'accountHolderName',
    'phoneNumber',
  ];
  const mobileRequired = ['referenceId', 'amount', 'accountNumber', 'currency'];

  const expectFieldError = (res: { status: number; json: Json | undefined }, field: string): void => {
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 400, error: 'BAD REQUEST', message: expect.stringContaining(field), field });
  };

  it.each(bankRequired)('bank: missing %s answers 400 naming it', async (field) => {
    const { [field]: _missing, ...body } = bankBody();
    expectFieldError(await create(base, BANK, body), field);
  });

  it.each(bankRequired)('bank: empty %s answers 400 naming it', async (field) => {
    expectFieldError(await create(base, BANK, bankBody({ [field]: field === 'referenceId' ? '   ' : '' })), field);
  });

  it.each(mobileRequired)('mobile money: missing %s answers 400 naming it', async (field) => {
    const { [field]: _missing, ...body } = mobileBody();
    expectFieldError(await create(base, MOBILE, body), field);
  });

  it.each([
    ['referenceId', 42],
    ['narration', 7],
    ['swiftCode', ['ZNCOZMLU']],
    ['email', 12],
    ['callbackUrl', 'not a url'],
  ])('bank: a wrong type or format of %s answers 400 naming it', async (field, value) => {
    expectFieldError(await create(base, BANK, bankBody({ [field]: value })), field);
  });

  it.each([[0], [-5], ['abc'], ['1e3'], [true], [{}]])('amount %p answers 400 naming amount', async (amount) => {
    expectFieldError(await create(base, MOBILE, mobileBody({ amount })), 'amount');
  });

  it.each([['ZM'], ['ZMWK'], ['Z1W']])('currency %p answers 400 naming currency', async (currency) => {
    expectFieldError(await create(base, BANK, bankBody({ currency })), 'currency');
  });

  it.each([
    ['bank', BANK, bankBody({ accountNumber: '0012-345' })],
    ['bank with letters (an IBAN)', BANK, bankBody({ accountNumber: 'GB82WEST12345698765432' })],
    ['bank too short', BANK, bankBody({ accountNumber: '123' })],
    ['mobile money with letters', MOBILE, mobileBody({ accountNumber: '26097123456a' })],
    ['mobile money too short', MOBILE, mobileBody({ accountNumber: '26097123456' })],
    ['mobile money without 260', MOBILE, mobileBody({ accountNumber: '270971234567' })],
    ['mobile money with an unknown operator', MOBILE, mobileBody({ accountNumber: '260981234567' })],
  ])('%s account number answers 400 naming accountNumber', async (_name, path, body) => {
    expectFieldError(await create(base, path, body), 'accountNumber');
  });

  it('refuses a callbackUrl header that is not an http(s) URL', async () => {
    expectFieldError(
      await create(base, MOBILE, mobileBody(), { headers: { callbackUrl: 'ftp://example.com/x' } }),
      'callbackUrl',
    );
  });

  it.each([
    ['invalid JSON', '{"referenceId": '],
    ['a JSON array', '[]'],
    ['a JSON string', '"hello"'],
    ['JSON null', 'null'],
  ])('answers 400 to %s', async (_name, raw) => {
    const res = await create(base, BANK, raw);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ status: 400, error: 'BAD REQUEST', message: expect.any(String) });
  });

  it('answers 415 when the body is not declared as JSON', async () => {
    const res = await create(base, MOBILE, JSON.stringify(mobileBody()), { headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.json).toEqual({ status: 415, error: 'UNSUPPORTED MEDIA TYPE', message: expect.any(String) });
  });

  it('answers 413 to a body over 64 KB', async () => {
    const res = await create(base, BANK, bankBody({ narration: 'x'.repeat(70 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ status: 413, error: 'PAYLOAD TOO LARGE' });
  });

  it('stores nothing for a refused request', async () => {
    const body = bankBody({ currency: 'ZM' });
    expect((await create(base, BANK, body)).status).toBe(400);
    expect((await checkStatus(base, body.referenceId as string)).status).toBe(404);
  });
});

describe('authentication', () => {
  it.each<[string, number, string, Record<string, string>]>([
    ['missing', 401, 'UNAUTHORIZED', {}],
    ['unknown', 401, 'UNAUTHORIZED', { 'x-api-key': 'some-secret-value-9f3' }],
    ['inactive', 403, 'FORBIDDEN', { 'x-api-key': 'sandbox-inactive-key' }],
  ])(
    'a %s key answers %i on create and check-status, without echoing the key',
    async (_name, status, error, headers) => {
      const body = mobileBody();
      const replies = [
        await create(base, MOBILE, body, { noKey: true, headers }),
        await create(base, BANK, bankBody(), { noKey: true, headers }),
        await checkStatus(base, 'anything', { noKey: true, headers }),
      ];
      for (const res of replies) {
        expect(res.status).toBe(status);
        expect(res.json).toEqual({ status, error, message: expect.any(String) });
        if (headers['x-api-key'] !== undefined) expect(res.text).not.toContain(headers['x-api-key']);
      }
      expect((await checkStatus(base, body.referenceId as string)).status).toBe(404);
    },
  );

  it('keeps each key to its own records', async () => {
    const body = mobileBody();
    expect((await create(base, MOBILE, body)).status).toBe(200);
    expect(
      (await checkStatus(base, body.referenceId as string, { headers: { 'x-api-key': 'second-key' } })).status,
    ).toBe(404);
    // The same referenceId is free under another key.
    expect((await create(base, MOBILE, body, { headers: { 'x-api-key': 'second-key' } })).status).toBe(200);
  });
});

describe('duplicate referenceId', () => {
  it.each([
    ['Pending', '260971234567'],
    ['Failed', '260971234111'],
  ])(
    'answers 400 naming referenceId when a %s record already uses it, and counts both requests',
    async (_state, accountNumber) => {
      const body = mobileBody({ accountNumber });
      const first = await create(base, MOBILE, body);
      expect(first.status).toBe(200);
      const again = await create(base, BANK, bankBody({ referenceId: body.referenceId }));
      expect(again.status).toBe(400);
      expect(again.json).toEqual({
        status: 400,
        error: 'BAD REQUEST',
        message: 'referenceId already used',
        field: 'referenceId',
      });
      const stats = sandbox.stats();
      expect(stats.createRequestsByReferenceId[body.referenceId as string]).toBe(2);
      expect(stats.duplicateCreatesByReferenceId[body.referenceId as string]).toBe(1);
      expect(stats.payoutsByReferenceId[body.referenceId as string]).toBe(1);
      expect(await statusOf(body.referenceId as string)).toMatchObject({
        accountNumber,
        paymentType: 'OperatorAMoney',
      });
    },
  );
});

describe('account ending in 500', () => {
  it('answers 500 and stores nothing', async () => {
    const body = bankBody({ accountNumber: '0012345500' });
    const res = await create(base, BANK, body);
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ status: 500, error: 'INTERNAL SERVER ERROR', message: expect.any(String) });
    expect((await checkStatus(base, body.referenceId as string)).status).toBe(404);
    expect(sandbox.records().some((r) => r.referenceId === body.referenceId)).toBe(false);
  });
});

describe('account ending in 408', () => {
  it('stores the payout at once and answers only after the slow delay', async () => {
    const body = mobileBody({ accountNumber: '260971234408' });
    let answered = false;
    const pending = create(base, MOBILE, body).then((res) => {
      answered = true;
      return res;
    });
    const stored = await waitFor('the slow payout to be stored', async () => {
      const res = await checkStatus(base, body.referenceId as string);
      return res.status === 200 ? res.json : undefined;
    });
    expect(answered).toBe(false);
    expect(stored.referenceId).toBe(body.referenceId);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ referenceId: body.referenceId, status: 'Pending', identifier: stored.identifier });
  });
});

describe('account ending in 410', () => {
  it.each([
    ['bank', BANK, bankBody({ accountNumber: '0012345410' })],
    ['mobile money', MOBILE, mobileBody({ accountNumber: '260971234410' })],
  ])('a %s create vanishes: never answered, never stored', (_name, path, body) => expectVanished(sandbox, path, body));
});

describe('check-status', () => {
  it('answers 404 with an error body for an unknown referenceId', async () => {
    const res = await checkStatus(base, newRef());
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ status: 404, error: 'NOT FOUND', message: expect.any(String) });
  });

  it('answers 400 naming referenceId when it is missing', async () => {
    const res = await call(base, 'GET', STATUS);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 400, field: 'referenceId' });
  });

  it('answers the Pending record, then the Successful one with an operator transaction id', async () => {
    const body = bankBody();
    const created = (await create(base, BANK, body)).json!;
    const settled = await waitFor('settlement', async () => {
      const record = await statusOf(body.referenceId as string);
      return record?.status === 'Successful' ? record : undefined;
    });
    expect(settled).toEqual({ ...created, status: 'Successful', externalId: expect.stringMatching(/^OP\d+$/) });
  });

  it('answers Failed with a message once an account ending in 000 settles', async () => {
    const body = mobileBody({ accountNumber: '260961234000' });
    const created = (await create(base, MOBILE, body)).json!;
    expect(created.status).toBe('Pending');
    const settled = await waitFor('settlement', async () => {
      const record = await statusOf(body.referenceId as string);
      return record?.status === 'Failed' ? record : undefined;
    });
    expect(settled).toEqual({ ...created, status: 'Failed', message: expect.stringMatching(/\S/) });
  });

  it('keeps an account ending in 222 Pending after others have settled', async () => {
    const stuck = mobileBody({ accountNumber: '260951234222' });
    const normal = mobileBody();
    await create(base, MOBILE, stuck);
    await create(base, MOBILE, normal);
    await waitFor('the ordinary payout to settle', async () =>
      (await statusOf(normal.referenceId as string))?.status === 'Successful' ? true : undefined,
    );
    // Created after it, the ordinary one settled after any settlement of this one would have run.
    expect(await statusOf(stuck.referenceId as string)).toMatchObject({ status: 'Pending', externalId: null });
  });
});

describe('routes and stats', () => {
  it('answers 405 to a wrong method and 404 to an unknown path', async () => {
    const wrongMethod = await call(base, 'GET', BANK);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    const unknown = await call(base, 'GET', '/api/v1/balance');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ status: 404, error: 'NOT FOUND' });
  });

  it('counts every create POST whatever its outcome, and every status request', async () => {
    const before = sandbox.stats();
    const body = mobileBody();
    await create(base, MOBILE, body, { noKey: true });
    await create(base, MOBILE, body);
    await create(base, MOBILE, { ...body, amount: -1 });
    await checkStatus(base, body.referenceId as string);
    const after = sandbox.stats();
    expect(after.createRequests - before.createRequests).toBe(3);
    expect(after.createRequestsByReferenceId[body.referenceId as string]).toBe(3);
    expect(after.statusRequests - before.statusRequests).toBe(1);
    // The invalid repeat is refused for its body before anyone asks whether it repeats a payout.
    expect(after.duplicateCreates - before.duplicateCreates).toBe(0);
  });

  it('lists stored records in their current state', async () => {
    const body = bankBody();
    await create(base, BANK, body);
    expect(sandbox.records().find((r) => r.referenceId === body.referenceId)).toMatchObject({
      status: 'Pending',
      paymentType: 'Bank',
    });
  });
});
