import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { bankInput, CREATE_BANK, eventually, gql, knownSecrets } from '../support/stack';

const TOKEN = 'tok_relay_replica_client_0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
type Relay = { delivered: boolean; gaveUp: boolean; attempts: { status: number | null; error: string | null }[] };
const QUERY = `query One($r: ID!) { disbursement(referenceId: $r) { status relay { delivered gaveUp attempts { status error } } } }`;

async function kill(gateway: GatewayProcess): Promise<void> {
  const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
  gateway.child.kill('SIGKILL');
  await exited;
}

/** Stops those still running; a killed process has no exit code, only its signal. */
async function stopLive(...gateways: (GatewayProcess | undefined)[]): Promise<void> {
  const live = gateways.filter((g): g is GatewayProcess => g !== undefined && g.child.signalCode === null);
  await Promise.all(live.map((g) => g.stop()));
}

/** Relays outlive the replica that started them: the work is in the shared database, and any live replica finishes it. */
describeEachEngine(
  'durable relays across gateway processes',
  (databaseEnv) => {
    const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
    let sandbox: SandboxHandle;
    let receiver: Server;
    let receiverUrl: string;
    /** Requests the client's endpoint got, by path. */
    const received = new Map<string, IncomingMessage[]>();
    const held: ServerResponse[] = [];
    /** What the endpoint does with the nth request (0-based) to a path. */
    let answer: (path: string, n: number) => number | 'hold' = () => 204;

    const envFor = () => ({
      PORT: '0',
      HOST: '127.0.0.1',
      UPSTREAM_BASE_URL: sandbox.url,
      MERCHANT_API_KEY: 'sandbox-key',
      CLIENT_TOKENS: TOKEN,
      CLIENT_RATE_LIMIT_PER_MIN: '0',
      WEBHOOK_SECRET: webhookSecret,
      ...databaseEnv(),
      RELAY_ALLOW_PRIVATE_NETWORKS: 'true',
      // One attempt may take 3 s; a replica holds a job for twice that.
      RELAY_TIMEOUT_MS: '3000',
      RELAY_RETRY_BASE_MS: '3000',
      RELAY_POLL_INTERVAL_MS: '100',
    });

    beforeAll(async () => {
      knownSecrets.add(TOKEN);
      sandbox = await startSandbox({
        port: 0,
        settleMs: 200,
        rateLimitPerMin: 0,
        webhookSecret,
        callbackRetryBaseMs: 50,
      });
      receiver = createServer((req, res) => {
        const path = req.url ?? '';
        const list = received.get(path) ?? [];
        list.push(req);
        received.set(path, list);
        const what = answer(path, list.length - 1);
        req.resume();
        if (what === 'hold') held.push(res);
        else req.on('end', () => res.writeHead(what).end());
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      for (const res of held) res.destroy();
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
      await sandbox.close();
    });

    const relayOn = (gateway: GatewayProcess, referenceId: string) =>
      eventually(
        async () => {
          const res = await gql<{ disbursement: { relay: Relay | null } }>(
            gateway.graphqlUrl,
            QUERY,
            { r: referenceId },
            AUTH,
          );
          const relay = res.data?.disbursement.relay;
          return relay?.delivered ? relay : undefined;
        },
        300,
        100,
      );

    it('completes after the replica that started it is killed between attempts', async () => {
      answer = (path, n) => (path === '/between' && n === 0 ? 503 : 204);
      const a = await launchGateway(envFor());
      const b = await launchGateway(envFor());
      try {
        const input = bankInput({ callbackUrl: `${receiverUrl}/between` });
        // A creates it and gets the provider's callback, so A's final-status hook starts the relay.
        expect((await gql(a.graphqlUrl, CREATE_BANK, { input }, AUTH)).errors).toBeUndefined();
        await eventually(async () => {
          const res = await gql<{ disbursement: { relay: Relay | null } }>(
            a.graphqlUrl,
            QUERY,
            { r: input.referenceId },
            AUTH,
          );
          return res.data?.disbursement.relay?.attempts.length === 1 ? true : undefined;
        }, 200);
        await kill(a);
        const relay = await relayOn(b, input.referenceId as string);
        expect(relay.attempts).toEqual([
          { status: 503, error: null },
          { status: 204, error: null },
        ]);
        const ids = (received.get('/between') ?? []).map((r) => r.headers['webhook-id']);
        expect(ids).toHaveLength(2);
        expect(new Set(ids).size).toBe(1);
      } finally {
        await stopLive(a, b);
      }
    }, 60_000);

    it('completes when the replica is killed in the middle of an attempt, sent again by the next with the same webhook-id', async () => {
      answer = (path, n) => (path === '/mid' && n === 0 ? 'hold' : 204);
      // A alone, so the attempt the endpoint holds is A's.
      const a = await launchGateway({ ...envFor(), RELAY_TIMEOUT_MS: '5000' });
      let b: GatewayProcess | undefined;
      try {
        const input = bankInput({ callbackUrl: `${receiverUrl}/mid` });
        expect((await gql(a.graphqlUrl, CREATE_BANK, { input }, AUTH)).errors).toBeUndefined();
        await eventually(() => ((received.get('/mid')?.length ?? 0) >= 1 ? true : undefined), 200);
        await kill(a);
        // The job is still leased to the dead A; B takes it once that lease ends.
        b = await launchGateway({ ...envFor(), RELAY_TIMEOUT_MS: '5000' });
        const relay = await relayOn(b, input.referenceId as string);
        // A never wrote its attempt; B's is the one on record.
        expect(relay.attempts).toEqual([{ status: 204, error: null }]);
        const ids = (received.get('/mid') ?? []).map((r) => r.headers['webhook-id']);
        expect(ids).toHaveLength(2);
        expect(new Set(ids).size).toBe(1);
      } finally {
        await stopLive(a, b);
      }
    }, 60_000);
  },
  { needs: ['replicas'] },
);
