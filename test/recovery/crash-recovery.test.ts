import { fingerprint } from '../../src/disbursements/disbursement.fingerprint';
import { Disbursement, MobileMoneyRequest } from '../../src/disbursements/disbursement.model';
import { DueLoop } from '../../src/disbursements/disbursement.due-loop';
import { DisbursementService } from '../../src/disbursements/disbursement.service';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { createLogger } from '../../src/observability/pino.logger';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { openSqlite, SqliteHandle } from '../../src/database/sqlite.open';
import { SqliteReconciliations } from '../../src/store/sqlite.reconciliations';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { UpstreamClient } from '../../src/upstream/upstream.client';
import { uniqueRef } from '../support/stack';
import { TEST_AUDIT_KEYS, TEST_ENTRY_KEY } from '../support/chain-key';
import { PayoutStore } from '../../src/store/payout.store';

/**
 * A gateway process stored its claim and died before (or right after) calling the provider.
 * The next process finds the claim marked "sending" and must never send the payout twice.
 */
const merchant = { id: 'default', apiKey: 'sandbox-key' };
const TIMEOUT_MS = 500;
/** Shorter than the dead claims' age (10 timeouts) less the stale time (2), so their window is over. */
const RESEND_AFTER_MS = 4 * TIMEOUT_MS;
let sandbox: SandboxHandle;
let upstream: UpstreamClient;
let handle: SqliteHandle;
let store: PayoutStore;
let service: DisbursementService;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, settleMs: 600_000, rateLimitPerMin: 0 });
  upstream = new UpstreamClient({
    baseUrl: sandbox.url,
    timeoutMs: TIMEOUT_MS,
    callbackUrl: () => 'http://127.0.0.1:9/callbacks/x',
    logger: createLogger({ level: 'silent', secrets: [] }),
  });
});
beforeEach(() => {
  // The embedded store, in memory: a new process's view of what the dead one left.
  handle = openSqlite(':memory:');
  store = sqliteStore({ file: handle, entryKey: TEST_ENTRY_KEY });
  service = new DisbursementService({
    store,
    records: store,
    book: store,
    auditKeys: TEST_AUDIT_KEYS,
    runs: new SqliteReconciliations(handle),
    events: new PubSubEvents(),
    provider: upstream,
    upstreamTimeoutMs: TIMEOUT_MS,
    resendAfterMs: RESEND_AFTER_MS,
    recheck: { unknownAfterMs: 100, pendingAfterMs: 600_000, maxDelayMs: 60_000 },
  });
});
afterEach(() => handle.close());
afterAll(async () => {
  await upstream.close();
  await sandbox.close();
});

function request(): MobileMoneyRequest {
  return {
    channel: 'MOBILE_MONEY',
    referenceId: uniqueRef('crash'),
    amount: '10',
    currency: 'ZMW',
    accountNumber: '260971234567',
  };
}

/** The claim a dead process left: still "sending", made `ageMs` ago (by default longer than any create and the resend window take). */
async function deadClaim(req: MobileMoneyRequest, ageMs = 10 * TIMEOUT_MS): Promise<void> {
  const longAgo = new Date(Date.now() - ageMs).toISOString();
  const claim: Disbursement = {
    merchantId: merchant.id,
    referenceId: req.referenceId,
    channel: req.channel,
    request: req,
    fingerprint: fingerprint(req),
    sending: true,
    sentAt: longAgo,
    status: 'UNKNOWN',
    paymentType: 'OTHER',
    amount: req.amount,
    currency: req.currency,
    accountNumber: req.accountNumber,
    updatedAt: longAgo,
    due: { kind: 'RECHECK', at: longAgo },
    version: 0,
    history: [],
    deliveryIds: [],
    checkAttempts: 0,
  };
  expect(await store.insertIfAbsent(claim)).toBeUndefined();
}

describe('a claim left by a process that died', () => {
  it('died before sending: the retry asks the provider, then sends once', async () => {
    const req = request();
    await deadClaim(req);
    const record = await service.create(merchant, req);
    expect(record.status).toBe('PENDING');
    expect(sandbox.stats().createRequestsByReferenceId[req.referenceId]).toBe(1);
  });

  it('died while its send may still be on its way in: the retry sends nothing and answers OUTCOME_UNKNOWN', async () => {
    const req = request();
    // Stale (older than twice the timeout), but the window after its latest possible send is not over.
    await deadClaim(req, 3 * TIMEOUT_MS);
    await expect(service.create(merchant, req)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(sandbox.stats().createRequestsByReferenceId[req.referenceId]).toBeUndefined();
  });

  it('died after sending: the retry finds the payout at the provider and sends nothing', async () => {
    const req = request();
    await upstream.create(merchant, req); // the dead process's call did reach the provider
    await deadClaim(req);
    const record = await service.create(merchant, req);
    expect(record.status).toBe('PENDING');
    expect(record.history.map((h) => h.source)).toEqual(['STATUS_CHECK']);
    expect(sandbox.stats().createRequestsByReferenceId[req.referenceId]).toBe(1);
  });

  it('the rechecker settles it by itself, and marks one the provider never received without sending it', async () => {
    const sent = request();
    await upstream.create(merchant, sent);
    await deadClaim(sent);
    const lost = request();
    await deadClaim(lost);
    const rechecker = new DueLoop({
      service,
      store,
      merchantById: () => merchant,
      merchantIds: () => [merchant.id],
      intervalMs: 60_000,
    });
    expect(await rechecker.checkDue()).toBe(2);
    const [found, never] = await store.getMany(merchant.id, [sent.referenceId, lost.referenceId]);
    expect(found).toMatchObject({ status: 'PENDING', sending: false });
    expect(never).toMatchObject({ status: 'UNKNOWN', sending: false });
    expect(never?.due?.at).toBeUndefined();
    expect(never?.history.at(-1)?.message).toMatch(/never received/);
    expect(sandbox.stats().createRequestsByReferenceId[lost.referenceId]).toBeUndefined();
    // The client's retry then sends it, once.
    expect((await service.create(merchant, lost)).status).toBe('PENDING');
    expect(sandbox.stats().createRequestsByReferenceId[lost.referenceId]).toBe(1);
  });
});
