import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { failStart, serveHttpToParent } from './child.ipc';

/**
 * The least a provider can be: a create is answered with a record in the status BENCH_STUB_STATUS
 * (default Pending), nothing is kept, nothing is checked, nobody is called back. Since nothing is
 * kept, a status check (the gateway asks one before each send) is answered 404, as the provider
 * answers a referenceId it does not hold. "Direct" in part 1 and the upstream of the floors and of
 * the gateway there.
 */
const STATUS = process.env.BENCH_STUB_STATUS ?? 'Pending';
/**
 * BENCH_STUB_KEEPS_PENDING=1: a provider slow to settle, which keeps every payout Pending and says so
 * when asked, whatever the referenceId, with the amount and account every bench payout has (it stores
 * nothing all the same); else a check is answered 404.
 */
const KEEPS_PENDING = process.env.BENCH_STUB_KEEPS_PENDING === '1';
const STATUS_PATH = '/api/v1/disbursements/check-status';

function notHeld(url: URL, res: ServerResponse): void {
  const referenceId = url.searchParams.get('referenceId') ?? '';
  if (KEEPS_PENDING) {
    const body = { referenceId, status: 'Pending', amount: 150.75, currency: 'ZMW', accountNumber: '260971234567' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...body, type: 'Disbursement' }));
    return;
  }
  const message = `No disbursement found with referenceId ${referenceId}`;
  res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 404, message }));
}

function answer(req: IncomingMessage, res: ServerResponse, raw: string): void {
  let request: {
    referenceId?: unknown;
    amount?: unknown;
    currency?: unknown;
    accountNumber?: unknown;
    narration?: unknown;
  };
  try {
    request = JSON.parse(raw) as typeof request;
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"body is not JSON"}');
    return;
  }
  const body = JSON.stringify({
    referenceId: request.referenceId,
    status: STATUS,
    amount: request.amount,
    currency: request.currency,
    accountNumber: request.accountNumber,
    type: 'Disbursement',
    paymentType: 'OperatorAMoney',
    ipAddress: req.socket.remoteAddress ?? '',
    identifier: `stub-${String(request.referenceId)}`,
    narration: request.narration,
    externalId: null,
    createdAt: new Date().toISOString(),
  });
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

async function main(): Promise<void> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    if (req.method === 'GET' && url.pathname === STATUS_PATH) {
      req.resume();
      notHeld(url, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await serveHttpToParent(server);
}

main().catch(failStart);
