import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { callbackBody, CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const oldSecret = secret();
const newSecret = secret();

let stack: Stack;
beforeAll(async () => {
  // The new secret first, the old one kept while the provider still signs with it.
  stack = await startStack({ env: { WEBHOOK_SECRET: `${newSecret} ${oldSecret}` } });
});
afterAll(() => stack.close());

async function deliver(referenceId: string, signingSecret: string): Promise<number> {
  const raw = JSON.stringify(callbackBody(referenceId, 'Successful'));
  const id = `msg_${randomUUID()}`;
  const at = new Date();
  const res = await fetch(stack.gateway.callbackUrl('default'), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(signingSecret).sign(id, at, raw),
    },
    body: raw,
  });
  return res.status;
}

/** A payout whose sandbox never calls back: the test delivers its callback. */
async function quietPayout(): Promise<string> {
  const input = mobileInput({ accountNumber: '260971234222' });
  expect((await gql(stack.graphqlUrl, CREATE_MOBILE, { input })).errors).toBeUndefined();
  return input.referenceId as string;
}

const status = async (referenceId: string) =>
  (
    await gql<{ disbursement: { status: string } }>(
      stack.graphqlUrl,
      `query($r: ID!) { disbursement(referenceId: $r) { status } }`,
      { r: referenceId },
    )
  ).data?.disbursement.status;

const secretUse = async (position: number) => {
  const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
  const line = new RegExp(`^gateway_callback_secrets_total\\{merchant="default",secret="${position}"\\} (\\d+)`, 'm');
  return Number(line.exec(text)?.[1] ?? 0);
};

describe('WEBHOOK_SECRET with two secrets (a rotation under way)', () => {
  it('trusts a callback signed with either, and /metrics counts which one by position, never its value', async () => {
    const [byOld, byNew] = [await quietPayout(), await quietPayout()];
    expect(await deliver(byOld, oldSecret)).toBe(200);
    expect(await deliver(byNew, newSecret)).toBe(200);
    expect([await status(byOld), await status(byNew)]).toEqual(['SUCCESSFUL', 'SUCCESSFUL']);
    expect([await secretUse(1), await secretUse(2)]).toEqual([1, 1]);
    const text = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(text).not.toContain(oldSecret.slice('whsec_'.length));
    expect(text).not.toContain(newSecret.slice('whsec_'.length));
  });

  it('still refuses a callback signed with neither, and it changes nothing', async () => {
    const referenceId = await quietPayout();
    expect(await deliver(referenceId, secret())).toBe(401);
    expect(await status(referenceId)).toBe('PENDING');
  });
});
