import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, request as httpRequest, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { describeEachEngine } from '../support/modes';
import { GatewayProcess, launchGateway, workingFolder } from '../support/process';
import { approvalTokens, QUICK_RECOVERY_ENV, sharedProvider, SharedProvider } from '../support/replicas';
import { eventually, gql, mobileInput } from '../support/stack';

jest.setTimeout(120_000);

const REQUESTER = 'tok_decided_crash_requester_0123456789abcdef';
const APPROVER = 'tok_decided_crash_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const APPROVE = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { referenceId status } }`;
const UNKNOWN = `query U { disbursementHistory(first: 100, filter: { status: [UNKNOWN] }) { edges { node { referenceId sendsAgain } } } }`;
const ONE = `query D($r: ID!) { disbursement(referenceId: $r) { status sendsAgain } }`;

/**
 * A proxy in front of the provider that holds the check-status of the referenceIds it is told to, and
 * says when one arrived: the moment to kill the gateway in. Everything else passes through.
 */
class CheckStatusGate {
  private server?: Server;
  readonly held = new Set<string>();
  readonly arrived = new Set<string>();
  private readonly waiting: ServerResponse[] = [];

  constructor(private readonly upstream: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://gate');
    const ref = url.searchParams.get('referenceId');
    if (url.pathname.endsWith('/check-status') && ref !== null && this.held.has(ref)) {
      this.arrived.add(ref);
      this.waiting.push(res);
      return;
    }
    const target = new URL(req.url ?? '/', this.upstream);
    const out = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  }

  async close(): Promise<void> {
    for (const res of this.waiting) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/**
 * Issue 53: the gateway finishes the sends it started. It is killed (SIGKILL) during the check-status
 * every decided send asks first, once for an approval's send and once for a scheduled payout's; after
 * the restart, once the provider confirms it never received them (RESEND_AFTER_SECONDS), the gateway
 * sends each again itself, once. Meanwhile they show as sent again by the gateway, and a metric counts them.
 */
describeEachEngine('issue 53: a decided send cut by a crash is finished by the gateway', (storeEnv) => {
  let shared: SharedProvider;
  let gate: CheckStatusGate;
  let gateway: GatewayProcess;
  const cwd = workingFolder();
  let settings: Record<string, string>;

  beforeAll(async () => {
    shared = await sharedProvider(storeEnv(), { settleMs: 100, callbackRetryBaseMs: 50 });
    gate = new CheckStatusGate(shared.sandbox.url);
    const gateUrl = await gate.start();
    settings = {
      ...shared.env,
      ...QUICK_RECOVERY_ENV,
      ...approvalTokens(REQUESTER, APPROVER),
      UPSTREAM_BASE_URL: gateUrl,
      RESEND_AFTER_SECONDS: '3',
    };
    gateway = await launchGateway(settings, cwd);
  });
  afterAll(async () => {
    await gateway?.stop();
    await gate?.close();
    await shared?.sandbox.close();
  });

  it('SIGKILL during an approval’s and a scheduled payout’s check-status: each sent once by the gateway after the restart', async () => {
    const create = async (input: Record<string, unknown>) =>
      (
        await gql<{ createMobileMoneyDisbursement: { referenceId: string; status: string } }>(
          gateway.graphqlUrl,
          CREATE,
          { input },
          as(REQUESTER),
        )
      ).data!.createMobileMoneyDisbursement;
    const held = await create(mobileInput({ referenceId: `crash-held-${randomUUID()}`, amount: '2500.00' }));
    const scheduled = await create(
      mobileInput({ referenceId: `crash-at-${randomUUID()}`, sendAt: new Date(Date.now() + 1_500).toISOString() }),
    );
    expect([held.status, scheduled.status]).toEqual(['AWAITING_APPROVAL', 'SCHEDULED']);
    gate.held.add(held.referenceId).add(scheduled.referenceId);

    // At its time the scheduled payout's send asks check-status first; then the approval's does; the
    // process dies while both wait (each call would give up after UPSTREAM_TIMEOUT_MS, 1 s).
    await eventually(() => (gate.arrived.has(scheduled.referenceId) ? true : undefined), 200, 10);
    void gql(gateway.graphqlUrl, APPROVE, { r: held.referenceId }, as(APPROVER)).catch(() => undefined);
    await eventually(() => (gate.arrived.has(held.referenceId) ? true : undefined), 200, 10);
    gateway.child.kill('SIGKILL');
    await gateway.stop();
    gate.held.clear();

    gateway = await launchGateway(settings, cwd);
    const creates = (r: string) => shared.sandbox.stats().createRequestsByReferenceId[r] ?? 0;
    // Until the provider's "not found" can be trusted, they wait, shown as the gateway's to send again.
    const waiting = await gql<{
      disbursementHistory: { edges: { node: { referenceId: string; sendsAgain: boolean } }[] };
    }>(gateway.graphqlUrl, UNKNOWN, {}, as(APPROVER));
    const shown = waiting.data?.disbursementHistory.edges.map((e) => e.node) ?? [];
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    if (creates(held.referenceId) === 0) {
      expect(shown).toContainEqual({ referenceId: held.referenceId, sendsAgain: true });
      expect(metrics).toMatch(/gateway_payouts_to_send_again [12]\b/);
    }

    await eventually(
      () => (creates(held.referenceId) === 1 && creates(scheduled.referenceId) === 1 ? true : undefined),
      400,
    );
    for (const r of [held.referenceId, scheduled.referenceId]) {
      const settled = await eventually(async () => {
        const one = await gql<{ disbursement: { status: string; sendsAgain: boolean } }>(
          gateway.graphqlUrl,
          ONE,
          { r },
          as(REQUESTER),
        );
        return one.data?.disbursement.status === 'SUCCESSFUL' ? one.data.disbursement : undefined;
      }, 400);
      expect(settled.sendsAgain).toBe(false);
    }
    // Nothing twice, however long the gateway runs on.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(creates(held.referenceId)).toBe(1);
    expect(creates(scheduled.referenceId)).toBe(1);
  });
});
