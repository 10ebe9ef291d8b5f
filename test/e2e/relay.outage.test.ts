import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Disbursement, isFinal } from '../../src/disbursements/disbursement.model';
import { PostgresRelayQueue } from '../../src/relay/postgres.relay-queue';
import { SqliteRelayQueue } from '../../src/relay/sqlite.relay-queue';
import { describeOwnPostgres, OwnPostgres, startOwnPostgres } from '../support/postgres';
import { bankInput, CREATE_BANK, eventually, gql, Stack, startStack } from '../support/stack';
import { PayoutStore } from '../../src/store/payout.store';

interface Delivery {
  webhookId: string;
  body: { type: string; data: { referenceId: string; status: string } };
}

type Update = PayoutStore['update'];
const QUERY = `query One($r: ID!) { disbursement(referenceId: $r) { status relay { delivered } } }`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let receiver: Server;
let hookUrl: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      deliveries.push({
        webhookId: String(req.headers['webhook-id']),
        body: JSON.parse(Buffer.concat(chunks).toString()) as Delivery['body'],
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((r) => receiver.close(r)));
afterEach(() => jest.restoreAllMocks());

/**
 * Runs `outage` the moment the store has committed the write that makes `referenceId` final, before
 * the gateway does anything else: the first update that resolves to the payout in a final status.
 */
function outageAfterFinalWrite(
  prototype: { update: Update },
  referenceId: string,
  outage: () => Promise<void>,
): Promise<void> {
  const update = prototype.update;
  let began = false;
  return new Promise((resolve) => {
    jest.spyOn(prototype, 'update').mockImplementation(async function (
      this: unknown,
      ...args: Parameters<Update>
    ): Promise<Disbursement | undefined> {
      const stored = await update.apply(this, args);
      if (!began && args[1] === referenceId && stored && isFinal(stored.status)) {
        began = true;
        await outage();
        resolve();
      }
      return stored;
    });
  });
}

/**
 * A bank payout with a callbackUrl; the database goes away (`down`) right after its final write commits
 * and comes back (`up`) a moment later. Its client's endpoint must receive the final record exactly once.
 */
async function relayedOnceAcrossOutage(
  stack: Stack,
  prototype: { update: Update },
  down: () => Promise<void>,
  up: () => Promise<void>,
): Promise<void> {
  const input = bankInput({ callbackUrl: hookUrl });
  const referenceId = String(input.referenceId);
  const outage = outageAfterFinalWrite(prototype, referenceId, down);
  expect((await gql(stack.graphqlUrl, CREATE_BANK, { input })).errors).toBeUndefined();
  await outage;
  // Whatever the gateway does after the write meets the outage first.
  await sleep(1500);
  await up();
  const record = await eventually(
    async () => {
      const res = await gql<{ disbursement: { status: string; relay: { delivered: boolean } | null } }>(
        stack.graphqlUrl,
        QUERY,
        { r: referenceId },
      );
      return res.data?.disbursement.relay?.delivered ? res.data.disbursement : undefined;
    },
    200,
    100,
  );
  // Several polls more: a second delivery would have been sent by now.
  await sleep(1000);
  const ours = deliveries.filter((d) => d.body.data.referenceId === referenceId);
  expect(ours).toHaveLength(1);
  expect(ours[0].body).toMatchObject({ type: 'disbursement.final', data: { status: record.status } });
  expect(isFinal(record.status as Disbursement['status'])).toBe(true);
}

const RELAY_ENV = { RELAY_ALLOW_PRIVATE_NETWORKS: 'true', RELAY_POLL_INTERVAL_MS: '100' };

describe('a relay across a database outage right after the final write (SQLite)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: RELAY_ENV });
  });
  afterAll(() => stack.close());

  it('reaches the client once, though the relay queue could not write at that moment', async () => {
    // The embedded file cannot be stopped under its one process: the relay queue's own writes fail instead.
    let down = false;
    const refused = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    for (const method of ['lease', 'retry', 'finish'] as const) {
      const original = SqliteRelayQueue.prototype[method] as (...args: unknown[]) => Promise<unknown>;
      jest.spyOn(SqliteRelayQueue.prototype, method).mockImplementation(async function (
        this: SqliteRelayQueue,
        ...args: unknown[]
      ): Promise<never> {
        if (down) throw refused();
        return original.apply(this, args) as Promise<never>;
      });
    }
    await relayedOnceAcrossOutage(
      stack,
      PayoutStore.prototype,
      async () => void (down = true),
      async () => void (down = false),
    );
  }, 60_000);
});

describeOwnPostgres('a relay across a database outage right after the final write (PostgreSQL)', () => {
  let server: OwnPostgres;
  let stack: Stack;
  beforeAll(async () => {
    server = await startOwnPostgres();
    stack = await startStack({ env: { ...RELAY_ENV, DATABASE_URL: server.url } });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await server?.destroy();
  });

  it('reaches the client once, though PostgreSQL stopped the moment the write committed', async () => {
    // The server takes a moment to stop. A relay poll in that moment would lease the job and deliver
    // it before the outage, and its finish, refused, would bring a second delivery after it (a repeat
    // with the same webhook-id, which clients drop): leases wait until the server is down.
    let stopped = () => {};
    const down = new Promise<void>((resolve) => (stopped = resolve));
    const lease = PostgresRelayQueue.prototype.lease;
    jest.spyOn(PostgresRelayQueue.prototype, 'lease').mockImplementation(async function (
      this: PostgresRelayQueue,
      ...args: Parameters<typeof lease>
    ) {
      await down;
      return lease.apply(this, args);
    });
    await relayedOnceAcrossOutage(
      stack,
      PayoutStore.prototype,
      async () => {
        await server.stop('immediate');
        stopped();
      },
      () => server.start(),
    );
  }, 90_000);
});
