import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { TestIdp } from '../support/idp';
import { GatewayProcess, launchGateway } from '../support/process';
import { eventually, gql, knownSecrets, subscriptionsLive } from '../support/stack';
import { codesOf, messagesOf, Stream, subscribeOver, Transport, TRANSPORTS } from '../support/streams';

jest.setTimeout(120_000);

const EVENTS = `subscription { disbursementEvents { cursor } }`;
const HISTORY = `query { disbursementHistory(first: 1) { totalCount } }`;
const token = (name: string) => `tok_${name}_${randomUUID()}`;
const keeper = token('keeper');
const leaver = token('leaver');
const goneToken = token('gone');
const shop = { id: 'shop', apiKey: `key-shop-${randomUUID()}`, clientTokens: [keeper, leaver] };
const gone = { id: 'gone', apiKey: `key-gone-${randomUUID()}`, clientTokens: [goneToken] };
const extra = { id: 'extra', apiKey: `key-extra-${randomUUID()}`, clientTokens: [token('extra')] };
const file = join(mkdtempSync(join(tmpdir(), 'reload-subscriptions-')), 'merchants.json');
const write = (merchants: unknown) => writeFileSync(file, JSON.stringify(merchants));

let sandbox: SandboxHandle;
let idp: TestIdp;
let gateway: GatewayProcess;
/** Each credential a subscription is opened with: shared tokens, and JWTs of either merchant. */
let credentials: Record<'keeper' | 'leaver' | 'goneToken' | 'shopJwt' | 'goneJwt', string>;

beforeAll(async () => {
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  for (const s of [keeper, leaver, goneToken, shop.apiKey, gone.apiKey, extra.apiKey, ...extra.clientTokens])
    knownSecrets.add(s);
  knownSecrets.add(webhookSecret);
  sandbox = await startSandbox({
    port: 0,
    settleMs: 400,
    rateLimitPerMin: 0,
    webhookSecret,
    activeKeys: [shop.apiKey],
  });
  idp = await TestIdp.start();
  write([shop, gone]);
  gateway = await launchGateway({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: sandbox.url,
    MERCHANTS_FILE: file,
    WEBHOOK_SECRET: webhookSecret,
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    JWT_JWKS_URL: idp.jwksUrl,
    JWT_ISSUER: idp.issuer,
    JWT_AUDIENCE: idp.audience,
    LOG_LEVEL: 'info',
  });
  const jwt = (merchant: string) => idp.sign({ claims: { merchant_id: merchant, scope: 'payouts:read' } });
  credentials = {
    keeper: `Bearer ${keeper}`,
    leaver: `Bearer ${leaver}`,
    goneToken: `Bearer ${goneToken}`,
    shopJwt: `Bearer ${await jwt('shop')}`,
    goneJwt: `Bearer ${await jwt('gone')}`,
  };
});
afterAll(async () => {
  await gateway.stop();
  await idp.close();
  await sandbox.close();
});

/** Sends SIGHUP and waits for the line saying the file was reloaded the `times`-th time. */
async function reload(times: number): Promise<void> {
  gateway.child.kill('SIGHUP');
  await eventually(
    () => ((gateway.output().match(/MERCHANTS_FILE reloaded/g) ?? []).length >= times ? true : undefined),
    200,
  );
}

const codeOf = async (authorization: string) =>
  (await gql(gateway.graphqlUrl, HISTORY, {}, { authorization })).errors?.[0]?.extensions?.code as string | undefined;

describe('MERCHANTS_FILE reloaded with SIGHUP: the subscriptions of what it removed end, the others go on', () => {
  it('on every transport: a reload in the middle of requests ends nothing; removing a token and a merchant ends theirs within 5 s', async () => {
    const open: { transport: Transport; who: keyof typeof credentials; stream: Stream<unknown> }[] = [];
    for (const transport of TRANSPORTS)
      for (const who of Object.keys(credentials) as (keyof typeof credentials)[])
        open.push({
          transport,
          who,
          stream: subscribeOver(transport, gateway.graphqlUrl, EVENTS, {}, credentials[who]),
        });
    try {
      await subscriptionsLive(gateway, open.length);

      // A reload that removes nothing (a merchant added), while requests of every credential run.
      write([shop, gone, extra]);
      const during = Array.from({ length: 40 }, (_v, i) =>
        codeOf(Object.values(credentials)[i % Object.keys(credentials).length]),
      );
      await reload(1);
      expect(await Promise.all(during)).toEqual(Array(40).fill(undefined));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(open.filter((o) => o.stream.isCompleted()).map((o) => `${o.transport} ${o.who}`)).toEqual([]);

      // The leaver's token and the whole merchant `gone` removed.
      write([{ ...shop, clientTokens: [keeper] }, extra]);
      const reloadedAt = Date.now();
      await reload(2);
      const ended = open.filter((o) => ['leaver', 'goneToken', 'goneJwt'].includes(o.who));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(ended.map((o) => o.stream.completed.catch(() => undefined))),
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
      expect(ended.filter((o) => !o.stream.isCompleted()).map((o) => `${o.transport} ${o.who}`)).toEqual([]);
      expect(Date.now() - reloadedAt).toBeLessThan(5_000);
      for (const o of ended) {
        const said = `${codesOf(o.stream.errors).join(' ')} ${messagesOf(o.stream.errors)}`;
        expect([o.transport, o.who, said]).toEqual([o.transport, o.who, expect.stringMatching(/UNAUTHENTICATED|4403/)]);
      }
      const kept = open.filter((o) => !ended.includes(o));
      expect(kept.filter((o) => o.stream.isCompleted()).map((o) => `${o.transport} ${o.who}`)).toEqual([]);
      await eventually(async () => {
        const text = await (await fetch(`${gateway.url}/metrics`)).text();
        return new RegExp(`^gateway_subscriptions_active ${kept.length}$`, 'm').test(text) ? true : undefined;
      });

      expect(await codeOf(credentials.leaver)).toBe('UNAUTHENTICATED');
      expect(await codeOf(credentials.goneToken)).toBe('UNAUTHENTICATED');
      expect(await codeOf(credentials.goneJwt)).toBe('FORBIDDEN');
      expect(await codeOf(credentials.keeper)).toBeUndefined();
      expect(await codeOf(credentials.shopJwt)).toBeUndefined();
    } finally {
      await Promise.all(open.map((o) => o.stream.close()));
    }
  });
});
