import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  bankInput,
  CREATE_BANK,
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  mobileInput,
  Stack,
  startStack,
} from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} relay { url delivered gaveUp attempts { at status error } } } }`;

const read = async (stack: Stack, referenceId: string) =>
  (
    await gql<{
      disbursement: PayoutRow & {
        relay: { delivered: boolean; gaveUp: boolean; attempts: { status: number | null }[] } | null;
      };
    }>(stack.graphqlUrl, QUERY, { referenceId })
  ).data!.disbursement;

describe('idempotent creates', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ sandbox: { latencyMs: 100 } });
  });
  afterAll(() => stack.close());

  it('makes one provider call for 20 concurrent identical mutations, and all get the same answer', async () => {
    const input = mobileInput();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input }),
      ),
    );
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    const bodies = new Set(answers.map((a) => JSON.stringify(a.data)));
    expect(bodies.size).toBe(1);
    expect(answers[0].data?.createMobileMoneyDisbursement.status).toBe('PENDING');
  });

  it('answers REFERENCE_CONFLICT to a changed amount sent while the first is still in flight', async () => {
    const input = mobileInput();
    const [first, second] = await Promise.all([
      gql(stack.graphqlUrl, CREATE_MOBILE, { input }),
      gql(stack.graphqlUrl, CREATE_MOBILE, { input: { ...input, amount: '999' } }),
    ]);
    expect(first.errors).toBeUndefined();
    expect(second.errors?.[0].extensions).toMatchObject({ code: 'REFERENCE_CONFLICT', fields: ['input.amount'] });
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });
});

describe('unknown outcomes', () => {
  let stack: Stack;
  beforeAll(async () => {
    // The provider is slower than the gateway's patience; callbacks never reach the gateway,
    // so only status checks (the client's retry, or the reconciler) can settle a payout.
    stack = await startStack({
      env: {
        UPSTREAM_TIMEOUT_MS: '300',
        PUBLIC_URL: 'http://127.0.0.1:9',
        RECONCILE_INTERVAL_MS: '50',
        RECONCILE_UNKNOWN_AFTER_MS: '100',
        RECONCILE_PENDING_AFTER_MS: '200',
      },
      sandbox: { slowCreateMs: 1500, callbackMaxAttempts: 1 },
    });
  });
  afterAll(() => stack.close());

  it('answers OUTCOME_UNKNOWN to a create that times out, keeps it UNKNOWN (never FAILED), and a retry reconciles without a second create', async () => {
    await stack.gateway.reconciler.stop(); // this case shows the client's own retry
    try {
      const input = mobileInput({ accountNumber: '260971234408' });
      const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
      const kept = await read(stack, input.referenceId as string);
      expect(kept.status).toBe('UNKNOWN');
      expect(kept.history.map((h) => h.status)).not.toContain('FAILED');
      const retry = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(retry.errors).toBeUndefined();
      expect(['PENDING', 'SUCCESSFUL']).toContain(retry.data?.createMobileMoneyDisbursement.status);
      expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
    } finally {
      stack.gateway.reconciler.start();
    }
  });

  it('lets the reconciler settle an UNKNOWN payout by itself, publishing each change', async () => {
    const input = mobileInput({ accountNumber: '260971234408' });
    const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    const settled = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.status === 'SUCCESSFUL' ? r : undefined;
    }, 200);
    expect(settled.history.map((h) => h.source)).toContain('STATUS_CHECK');
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it('checks a PENDING payout whose callback is overdue', async () => {
    const input = mobileInput();
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    const settled = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.status === 'SUCCESSFUL' ? r : undefined;
    }, 200);
    expect(settled.history.map((h) => [h.status, h.source])).toEqual([
      ['PENDING', 'CREATE'],
      ['SUCCESSFUL', 'STATUS_CHECK'],
    ]);
  });

  it.each([
    ['a reset after sending', { resetRate: 1 }],
    ['a malformed 2xx', { malformedRate: 1 }],
    ['a slow body', { slowBodyRate: 1 }],
  ])('answers OUTCOME_UNKNOWN to %s and the payout is reconciled, sent once', async (_name, faults) => {
    stack.sandbox.setFaults(faults);
    const input = mobileInput();
    let res;
    try {
      res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
    } finally {
      stack.sandbox.setFaults({});
    }
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    await eventually(
      async () => ((await read(stack, input.referenceId as string)).status === 'SUCCESSFUL' ? true : undefined),
      200,
    );
    expect(stack.sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
  });

  it('answers UPSTREAM_UNAVAILABLE to a 5xx the provider did not act on, and keeps nothing', async () => {
    stack.sandbox.setFaults({ errorRate: 1 });
    const input = mobileInput();
    try {
      const res = await gql(stack.graphqlUrl, CREATE_MOBILE, { input });
      expect(res.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      stack.sandbox.setFaults({});
    }
    expect(await read(stack, input.referenceId as string)).toBeNull();
  });
});

describe('circuit breaker', () => {
  it('fails fast with UPSTREAM_UNAVAILABLE while the provider fails, and recovers by itself', async () => {
    const stack = await startStack({ env: { UPSTREAM_BREAKER_RESET_MS: '300' } });
    try {
      stack.sandbox.setFaults({ errorRate: 1 });
      for (let i = 0; i < 12; i += 1) await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      const before = stack.sandbox.stats().createRequests;
      const fast = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput() });
      expect(fast.errors?.[0].extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(stack.sandbox.stats().createRequests).toBe(before); // refused before sending
      stack.sandbox.setFaults({});
      const recovered = await eventually(
        async () => {
          const r = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(stack.graphqlUrl, CREATE_MOBILE, {
            input: mobileInput(),
          });
          return r.data?.createMobileMoneyDisbursement ?? undefined;
        },
        50,
        100,
      );
      expect(recovered.status).toBe('PENDING');
    } finally {
      await stack.close();
    }
  });
});

describe("relay to the client's callbackUrl", () => {
  const relaySecret = `whsec_${Buffer.from('relay secret for tests, 32 bytes').toString('base64')}`;
  let stack: Stack;
  let receiver: Server;
  let receiverUrl: string;
  const received: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let failuresLeft = 2;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        const fail = req.url === '/always-down' || (req.url === '/flaky' && failuresLeft-- > 0);
        res.writeHead(fail ? 503 : 204);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startStack({
      env: {
        RELAY_WEBHOOK_SECRET: relaySecret,
        RELAY_MAX_ATTEMPTS: '3',
        RELAY_RETRY_BASE_MS: '50',
        RELAY_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((r) => receiver.close(r));
  });

  it('delivers the final record signed, retrying until the client answers 2xx, with an audit of attempts', async () => {
    const input = bankInput({ callbackUrl: `${receiverUrl}/flaky` });
    await gql(stack.graphqlUrl, CREATE_BANK, { input });
    const done = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.relay?.delivered ? r : undefined;
    }, 200);
    expect(done.relay?.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    const deliveries = received.filter((r) => r.path === '/flaky');
    expect(deliveries).toHaveLength(3);
    const last = deliveries[2];
    const verified = new Webhook(relaySecret).verify(last.body, {
      'webhook-id': String(last.headers['webhook-id']),
      'webhook-timestamp': String(last.headers['webhook-timestamp']),
      'webhook-signature': String(last.headers['webhook-signature']),
    }) as { data: { referenceId: string; status: string } };
    expect(verified.data).toMatchObject({ referenceId: input.referenceId, status: 'SUCCESSFUL' });
    expect(new Set(deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
  });

  it('stops after its bound when the client never answers 2xx', async () => {
    const input = bankInput({ callbackUrl: `${receiverUrl}/always-down` });
    await gql(stack.graphqlUrl, CREATE_BANK, { input });
    const done = await eventually(async () => {
      const r = await read(stack, input.referenceId as string);
      return r.relay?.gaveUp ? r : undefined;
    }, 200);
    expect(done.relay?.attempts).toHaveLength(3);
    // gaveUp is stored by the same decision that ends the job instead of scheduling a retry: once it reads true,
    // no fourth attempt is coming.
    expect(received.filter((r) => r.path === '/always-down')).toHaveLength(3);
  });
});
