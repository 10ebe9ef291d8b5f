import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayProcess, launchGateway, workingFolder } from '../support/process';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const tokenMain = join(__dirname, '..', '..', 'dist', 'auth', 'jwt.token.main.js');
/** The checkout a developer runs both commands in: the key `npm start` made is the one `npm run token` signs with. */
const checkout = workingFolder();
let gateway: GatewayProcess;

/** The development JWT path on a fresh machine: `npm start` with no settings, then `npm run token`. */
beforeAll(async () => {
  gateway = await launchGateway({ PORT: '0', SANDBOX_PORT: '0', SANDBOX_SETTLE_MS: '100' }, checkout);
  const { d } = JSON.parse(readFileSync(join(checkout, '.dev', 'jwt-key.json'), 'utf8')) as { d: string };
  knownSecrets.add(d);
}, 60_000);

/** A token `npm run token` mints in `folder`, signed with the key the gateway started there made. */
function mintToken(scope: string, sub?: string, folder = checkout): string {
  const args = [tokenMain, '--merchant', 'default', '--scope', scope, ...(sub ? ['--sub', sub] : [])];
  const token = execFileSync(process.execPath, args, {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  knownSecrets.add(token);
  return token;
}

describe('development tokens with the embedded sandbox', () => {
  it('the sandbox serves the public development key set, never the private key', async () => {
    const sandboxUrl = /embedded sandbox provider at (http:\/\/[\d.:]+)/.exec(gateway.output())?.[1];
    const res = await fetch(`${sandboxUrl}/.well-known/jwks.json`);
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    expect(keys).toEqual([expect.objectContaining({ kty: 'EC', alg: 'ES256', kid: expect.any(String) })]);
    expect(keys[0].d).toBeUndefined();
  });

  it('a minted read-only token reads and subscribes but cannot pay out; open access stays on without a token', async () => {
    const readOnly = mintToken('payouts:read');
    const headers = { authorization: `Bearer ${readOnly}` };
    const input = mobileInput();
    expect((await gql(gateway.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
    const one = `query One($r: ID!) { disbursement(referenceId: $r) { referenceId } }`;
    expect((await gql(gateway.graphqlUrl, one, { r: input.referenceId }, headers)).data).toEqual({
      disbursement: { referenceId: input.referenceId },
    });
    const refused = await gql(gateway.graphqlUrl, CREATE_MOBILE, { input: mobileInput() }, headers);
    expect(refused.errors?.[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringContaining('payouts:write'),
    });
    const client = wsClient(gateway.graphqlUrl, headers);
    const watch = subscribe<{ disbursementUpdated: PayoutRow }>(client, WATCH, { referenceId: input.referenceId });
    await watch.completed;
    expect(watch.events.at(-1)?.disbursementUpdated.status).toBe('SUCCESSFUL');
    await client.dispose();
  });

  it('a minted token with payouts:write pays out; a tampered one is refused', async () => {
    const token = mintToken('payouts:read payouts:write');
    const res = await gql(
      gateway.graphqlUrl,
      CREATE_MOBILE,
      { input: mobileInput() },
      { authorization: `Bearer ${token}` },
    );
    expect(res.errors).toBeUndefined();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, merchant_id: 'other' })).toString('base64url')}.${signature}`;
    const refused = await gql(
      gateway.graphqlUrl,
      CREATE_MOBILE,
      { input: mobileInput() },
      { authorization: `Bearer ${forged}` },
    );
    expect(refused.status).toBe(401);
  });
});

describe('two people played on one machine with --sub, under payout controls', () => {
  // A checkout of its own: one process per embedded database file, and its own development key.
  const folder = workingFolder();
  let controlled: GatewayProcess;
  beforeAll(async () => {
    controlled = await launchGateway(
      {
        PORT: '0',
        SANDBOX_PORT: '0',
        SANDBOX_SETTLE_MS: '100',
        PAYOUT_CONTROLS: '{"approvalAbove": {"ZMW": "100"}}',
      },
      folder,
    );
  }, 60_000);
  afterAll(async () => {
    await controlled.stop();
  });

  it('alice asks, cannot approve her own payout; bob approves it and it is sent', async () => {
    const alice = {
      authorization: `Bearer ${mintToken('payouts:read payouts:write payouts:approve', 'alice', folder)}`,
    };
    const bob = { authorization: `Bearer ${mintToken('payouts:approve', 'bob', folder)}` };
    const input = mobileInput({ amount: '150.75' });
    const held = await gql<{ createMobileMoneyDisbursement: { status: string } }>(
      controlled.graphqlUrl,
      CREATE_MOBILE,
      { input },
      alice,
    );
    expect(held.data?.createMobileMoneyDisbursement.status).toBe('AWAITING_APPROVAL');
    const approve = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { status approval { requestedBy decidedBy } } }`;
    const own = await gql(controlled.graphqlUrl, approve, { r: input.referenceId }, alice);
    expect(own.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const approved = await gql(controlled.graphqlUrl, approve, { r: input.referenceId }, bob);
    expect(approved.data).toEqual({
      approveDisbursement: { status: 'PENDING', approval: { requestedBy: 'alice', decidedBy: 'bob' } },
    });
  });
});
