import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { RedisEvents } from '../../src/events/redis.events';
import { RedisStore } from '../../src/store/redis.store';
import { watching } from '../store/events.contract';
import { record, storeContract } from '../store/store.contract';
import { describeRedis, uniquePrefix } from '../support/redis';
import {
  CREATE_MOBILE,
  DISBURSEMENT_FIELDS,
  eventually,
  gql,
  mobileInput,
  Stack,
  startStack,
  subscriptionsLive,
  uniqueRef,
} from '../support/stack';
import { subscribeOver } from '../support/streams';
import { subscribe, wsClient } from '../support/ws';

const run = promisify(execFile);

/** A port free for the node and for its cluster bus (port + 10000). */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 30000);
    const free = await Promise.all([port, port + 10000].map(canListen));
    if (free.every(Boolean)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

interface TestCluster {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

/** Three fresh cluster-enabled redis-servers (no saved state) joined with redis-cli --cluster create. */
async function startCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pgw-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const servers: ChildProcess[] = ports.map((port) =>
    spawn(
      'redis-server',
      [
        ...[
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
        ],
        ...['--save', '', '--appendonly', 'no', '--dir', dir],
      ],
      { stdio: 'ignore' },
    ),
  );
  const stop = async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) =>
            server.exitCode !== null ? resolve() : (server.once('exit', () => resolve()), server.kill()),
          ),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports)
      await eventually(
        async () => (await run('redis-cli', ['-p', String(port), 'ping'])).stdout.includes('PONG') || undefined,
      );
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports) {
      await eventually(
        async () =>
          (await run('redis-cli', ['-p', String(port), 'cluster', 'info'])).stdout.includes('cluster_state:ok') ||
          undefined,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), stop };
}

const WATCH = `subscription Watch($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;
const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { referenceId status identifier } }`;

describeRedis('a three-node Redis Cluster started by the test', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  storeContract('redis cluster', async () => {
    const store = new RedisStore({ redis: { cluster: cluster.nodes }, prefix: uniquePrefix().prefix });
    return { store, cleanup: () => store.close() };
  });

  it('spreads merchants over slots and hears changes across instances over sharded pub/sub', async () => {
    const { prefix } = uniquePrefix();
    const redis = { cluster: cluster.nodes };
    const [a, b] = [new RedisEvents({ redis, prefix }), new RedisEvents({ redis, prefix })];
    try {
      const r = record();
      const payout = watching(b.watch(r.merchantId, r.referenceId));
      await b.listening(r.merchantId, r.referenceId);
      await a.publish(r);
      expect(await payout.first).toEqual(r);
      await payout.stop();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const admin = new Cluster(cluster.nodes);
    try {
      expect(await admin.cluster('KEYSLOT', `${prefix}{m1}:d:x`)).toBe(
        await admin.cluster('KEYSLOT', `${prefix}{m1}:due`),
      );
    } finally {
      admin.disconnect();
    }
  });

  describe('two gateways sharing the cluster', () => {
    const { prefix } = uniquePrefix();
    let a: Stack;
    let b: Stack;
    beforeAll(async () => {
      const env = {
        REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(','),
        REDIS_KEY_PREFIX: prefix,
      };
      [a, b] = await Promise.all([
        startStack({ env, sandbox: { settleMs: 300 } }),
        startStack({ env, sandbox: { settleMs: 300 } }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([a.close(), b.close()]);
    });

    it('a create on A, its callback on A, a subscriber on B sees SUCCESSFUL, and B serves the record', async () => {
      const referenceId = uniqueRef('cluster');
      const client = wsClient(b.graphqlUrl);
      try {
        const created = await gql<{ createMobileMoneyDisbursement: { identifier: string } }>(
          a.graphqlUrl,
          CREATE_MOBILE,
          {
            input: mobileInput({ referenceId }),
          },
        );
        expect(created.errors).toBeUndefined();
        const watch = subscribe<{ disbursementUpdated: { status: string } }>(client, WATCH, { referenceId });
        await watch.completed;
        expect(watch.events.at(-1)?.disbursementUpdated.status).toBe('SUCCESSFUL');
        const read = await gql<{ disbursement: { identifier: string; status: string } }>(b.graphqlUrl, QUERY, {
          referenceId,
        });
        expect(read.data?.disbursement).toMatchObject({
          status: 'SUCCESSFUL',
          identifier: created.data?.createMobileMoneyDisbursement.identifier,
        });
      } finally {
        await client.dispose();
      }
    });

    it('disbursementEvents resumes on B after a cursor given on A, from the merchant stream in its slot', async () => {
      type Events = { disbursementEvents: { cursor: string; disbursement: { referenceId: string; status: string } } };
      const EVENTS = `subscription E($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status } } }`;
      const onA = subscribeOver<Events>('websocket', a.graphqlUrl, EVENTS);
      await subscriptionsLive(a, 1);
      const first = mobileInput();
      await gql(a.graphqlUrl, CREATE_MOBILE, { input: first });
      const seen = await onA.waitFor(2);
      const { cursor } = seen[1].disbursementEvents;
      const missed = [mobileInput(), mobileInput({ accountNumber: '260971234000' })];
      for (const input of missed) await gql(a.graphqlUrl, CREATE_MOBILE, { input });
      await onA.waitFor(6);
      const onB = subscribeOver<Events>('sse', b.graphqlUrl, EVENTS, { after: cursor });
      await onB.waitFor(4);
      expect(onB.events).toEqual(onA.events.slice(2, 6));
      expect(onB.errors).toEqual([]);
      await Promise.all([onA.close(), onB.close()]);
    });

    it('ten concurrent identical creates over A and B reach a provider once', async () => {
      const input = mobileInput({ referenceId: uniqueRef('cluster-once') });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => gql((i % 2 ? a : b).graphqlUrl, CREATE_MOBILE, { input })),
      );
      expect(answers.filter((r) => r.errors === undefined).length).toBeGreaterThan(0);
      const sent = [...a.sandbox.records(), ...b.sandbox.records()].filter((r) => r.referenceId === input.referenceId);
      expect(sent).toHaveLength(1);
    });
  });
});
