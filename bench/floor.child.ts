import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { failStart, serveHttpToParent } from './child.ipc';

/**
 * The bare-proxy floor: the least any Node gateway must do for a payout. node:http in, the
 * GraphQL request's JSON parsed, one undici POST to the provider stub, its JSON parsed, a
 * GraphQL-shaped JSON answer out. No validation, idempotency, store, auth, logging or metrics.
 */
interface CreateRequest {
  variables?: { input?: Record<string, unknown> };
}

async function main(): Promise<void> {
  const upstream = new URL(process.env.BENCH_UPSTREAM_URL ?? '');
  const pool = new Pool(upstream.origin, { connections: 64, keepAliveTimeout: 10_000 });
  const path = '/api/v1/disbursements/mobile-money';

  async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as CreateRequest).variables?.input ?? {};
    const answer = await pool.request({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'x-api-key': 'sandbox-key' },
      body: JSON.stringify({ ...input, amount: Number(input.amount) }),
    });
    const record = (await answer.body.json()) as Record<string, unknown>;
    const body = JSON.stringify({
      data: {
        createMobileMoneyDisbursement: {
          referenceId: record.referenceId,
          status: String(record.status).toUpperCase(),
          paymentType: 'OPERATOR_A_MONEY',
          identifier: record.identifier,
          createdAt: record.createdAt,
        },
      },
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }

  const server = createServer((req, res) => {
    proxy(req, res).catch(() => res.writeHead(502).end());
  });
  await serveHttpToParent(server, () => pool.close());
}

main().catch(failStart);
