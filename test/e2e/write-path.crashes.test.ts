import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { auditVerify } from '../support/audit';
import { describeEachEngine } from '../support/modes';
import { GatewayProcess, launchGateway } from '../support/process';
import { approvalTokens, QUICK_RECOVERY_ENV, sharedProvider } from '../support/replicas';
import { GraphQLResponse, gql, mobileInput } from '../support/stack';

jest.setTimeout(240_000);

const REQUESTER = 'tok_write_crashes_requester_0123456789abcdef';
const APPROVER = 'tok_write_crashes_approver_0123456789abcdef';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const CREATE = `mutation C($input: MobileMoneyDisbursementInput!) {
  createMobileMoneyDisbursement(input: $input) { referenceId status }
}`;
const APPROVE = `mutation A($r: ID!) { approveDisbursement(referenceId: $r) { referenceId status approval { decision } } }`;
const PAGE = `query P($prefix: String, $after: String) {
  disbursementHistory(first: 100, after: $after, filter: { referenceIdPrefix: $prefix }) {
    edges { node { referenceId status approval { decision } } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const ROUNDS = 3;
const WORKERS = 6;
/** How long clients work before the (first) process is killed, and before the second one is. */
const KILL_AFTER_MS = [2000, 1000];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Created = { createMobileMoneyDisbursement: { status: string } };
type Approved = { approveDisbursement: { status: string; approval: { decision: string } | null } };
interface Seen {
  status: string;
  decision: string | null;
}

/** What the clients were told, kept as they would keep it: the answers, and what they still have to retry. */
class Clients {
  readonly inputs = new Map<string, Record<string, unknown>>();
  /** The last status each create was answered with (OUTCOME_UNKNOWN as UNKNOWN). */
  readonly acknowledged = new Map<string, string>();
  /** Approvals answered APPROVED. */
  readonly approved = new Set<string>();
  /** Creates without an answer, and held payouts to approve: retried (approved) by the next round. */
  readonly retries = new Set<string>();
  readonly toApprove = new Set<string>();
  /** Error codes answered, for the failure message. */
  readonly codes = new Map<string, number>();
  private created = 0;
  private held = 0;
  private turn = 0;

  constructor(private readonly prefix: string) {}

  /** One client action on one of `live` (two when a duplicate or a second approval races the first). */
  async act(live: () => GatewayProcess[]): Promise<void> {
    const pick = (offset = 0) => {
      const targets = live();
      return targets[(this.turn + offset) % targets.length];
    };
    this.turn += 1;
    const retry = this.retries.values().next();
    if (!retry.done) {
      this.retries.delete(retry.value);
      return this.create(pick(), retry.value);
    }
    const approval = this.toApprove.values().next();
    if (!approval.done && this.turn % 2 === 0) {
      this.toApprove.delete(approval.value);
      const racing = this.turn % 4 === 0 ? [pick(), pick(1)] : [pick()];
      await Promise.all(racing.map((on) => this.approve(on, approval.value)));
      return;
    }
    const k = (this.created += 1);
    const ref = `${this.prefix}${k}`;
    this.inputs.set(
      ref,
      mobileInput({
        referenceId: ref,
        // A third above the merchant's approval threshold; some settle FAILED, some fail at once.
        amount: k % 3 === 0 ? '2500.00' : '10.00',
        accountNumber: k % 5 === 1 ? '260971234000' : k % 7 === 2 ? '260971234111' : '260971234567',
      }),
    );
    // A quarter sent twice at once (a double click, a balancer's retry), over both replicas where there are two.
    const racing = k % 4 === 3 ? [pick(), pick(1)] : [pick()];
    await Promise.all(racing.map((on) => this.create(on, ref)));
  }

  /** Every create still unanswered, and those of `unknown`, sent once more (spread over `on`). */
  async retry(on: GatewayProcess[], unknown: string[]): Promise<void> {
    const refs = [...new Set([...this.retries, ...unknown])];
    this.retries.clear();
    await Promise.all(refs.map((ref, i) => this.create(on[i % on.length], ref)));
  }

  private async create(on: GatewayProcess, ref: string): Promise<void> {
    const answer = await gql<Created>(on.graphqlUrl, CREATE, { input: this.inputs.get(ref) }, as(REQUESTER)).catch(
      () => undefined,
    );
    const status = answer?.data?.createMobileMoneyDisbursement?.status;
    const code = this.code(answer);
    if (status === undefined && code !== 'OUTCOME_UNKNOWN') {
      this.retries.add(ref);
      return;
    }
    this.acknowledged.set(ref, status ?? 'UNKNOWN');
    if (status === undefined) this.retries.add(ref);
    if (status === 'AWAITING_APPROVAL' && !this.approved.has(ref)) {
      // Every third held payout is left held: it must never reach the provider.
      this.held += 1;
      if (this.held % 3 !== 0) this.toApprove.add(ref);
    }
  }

  private async approve(on: GatewayProcess, ref: string): Promise<void> {
    const answer = await gql<Approved>(on.graphqlUrl, APPROVE, { r: ref }, as(APPROVER)).catch(() => undefined);
    const code = this.code(answer);
    if (answer?.data?.approveDisbursement?.approval?.decision === 'APPROVED') this.approved.add(ref);
    // Already decided (by its racing twin, or before a crash) needs nothing more; anything else is asked again.
    else if (code !== 'INVALID_STATE') this.toApprove.add(ref);
  }

  private code(answer: GraphQLResponse | undefined): string | undefined {
    const code = answer === undefined ? 'CONNECTION' : answer.errors?.[0]?.extensions?.code;
    if (typeof code !== 'string') return undefined;
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    return code;
  }
}

/**
 * The write path under SIGKILL: clients create payouts (some held by the approval threshold, some sent
 * twice at once), approvers approve held ones, the sandbox's signed callbacks arrive (it settles in
 * 150 ms), and the gateway process (or both replicas, one after the other) is killed with all of that
 * in flight, round after round on one database. Then fresh processes settle what is left, and what a
 * user can see is checked against what the provider received.
 */
function writePathSurvivesSigkill(databaseEnv: () => Record<string, string>, replicas: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'write-path-crashes-'));
  let sandbox: SandboxHandle;
  let env: Record<string, string>;

  beforeAll(async () => {
    const shared = await sharedProvider(databaseEnv(), { settleMs: 150, callbackRetryBaseMs: 50, latencyMs: 20 });
    sandbox = shared.sandbox;
    env = {
      ...shared.env,
      ...QUICK_RECOVERY_ENV,
      ...approvalTokens(REQUESTER, APPROVER),
      AUDIT_CHECKPOINT_SECONDS: '1',
      RECONCILE_PENDING_AFTER_MS: '1000',
      // The sandbox takes a create in as it arrives: "not found" is true at once, trusted after 1 s.
      RESEND_AFTER_SECONDS: '1',
    };
    // A second create of a referenceId is paid again, as the worst provider would: a send twice costs money.
    sandbox.setFaults({ payDuplicates: true });
  });

  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Each replica slot keeps its own checkpoint file, as replicas on their own machines would. */
  const checkpoints = (slot: number) => join(dir, `checkpoints-${slot}.jsonl`);
  const launchAll = () =>
    Promise.all(
      Array.from({ length: replicas }, (_, slot) =>
        launchGateway({ ...env, AUDIT_CHECKPOINT_FILE: checkpoints(slot) }),
      ),
    );

  /** Every payout under `prefix` as the gateway shows it. */
  const shown = async (on: GatewayProcess, prefix: string): Promise<Map<string, Seen>> => {
    type Page = {
      disbursementHistory: {
        edges: { node: { referenceId: string } & Seen & { approval: { decision: string } | null } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    };
    const all = new Map<string, Seen>();
    let after: string | null = null;
    for (;;) {
      const answer: GraphQLResponse<Page> = await gql<Page>(on.graphqlUrl, PAGE, { prefix, after }, as(REQUESTER));
      const page = answer.data?.disbursementHistory;
      if (!page) throw new Error(`history unreadable: ${answer.text}`);
      for (const { node } of page.edges)
        all.set(node.referenceId, { status: node.status, decision: node.approval?.decision ?? null });
      if (!page.pageInfo.hasNextPage) return all;
      after = page.pageInfo.endCursor;
    }
  };

  /** The provider's first record of each referenceId (the one check-status answers). */
  const provided = () => {
    const first = new Map<string, string>();
    for (const record of sandbox.records())
      if (!first.has(record.referenceId)) first.set(record.referenceId, record.status);
    return first;
  };
  const FINAL: Readonly<Record<string, string>> = { Successful: 'SUCCESSFUL', Failed: 'FAILED' };

  it('sends no payout twice, loses none, fails none falsely, and the trail verifies', async () => {
    const prefix = `crash-${randomUUID()}-`;
    const clients = new Clients(prefix);
    for (let round = 0; round < ROUNDS; round += 1) {
      const gateways = await launchAll();
      const killed = new Set<GatewayProcess>();
      const live = () => gateways.filter((g) => !killed.has(g));
      const workers = Array.from({ length: WORKERS }, async () => {
        while (live().length > 0) await clients.act(live);
      });
      // Killed with creates, approvals and callbacks in flight; with two, the second goes on alone a while.
      for (const [i, gateway] of gateways.entries()) {
        await sleep(KILL_AFTER_MS[i]);
        killed.add(gateway);
        gateway.child.kill('SIGKILL');
      }
      await Promise.all(workers);
      await Promise.all(gateways.map((g) => g.stop()));
    }

    const gateways = await launchAll();
    let view = new Map<string, Seen>();
    const unsettled = () => [
      ...[...provided()]
        .filter(([ref, status]) => FINAL[status] === undefined || view.get(ref)?.status !== FINAL[status])
        .map(([ref, status]) => `${ref}: provider ${status}, gateway ${view.get(ref)?.status}`),
      ...[...view].filter(([, p]) => p.status === 'UNKNOWN').map(([ref]) => `${ref}: still UNKNOWN`),
    ];
    try {
      // Clients retry what was never answered, answered OUTCOME_UNKNOWN, or shows UNKNOWN (an approved
      // payout whose send was killed: "never received. Retry the same request"), until it is answered; the
      // new processes settle the rest (rechecks, late callbacks).
      for (let i = 0; i < 120; i += 1) {
        const unknown = [...view].filter(([, p]) => p.status === 'UNKNOWN').map(([ref]) => ref);
        await clients.retry(gateways, unknown);
        view = await shown(gateways[i % gateways.length], prefix);
        if (unsettled().length === 0) break;
        await sleep(500);
      }
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
    }

    const stats = sandbox.stats();
    const records = provided();
    // The rounds did what they are for: payouts held, approved, answered, failed, and some never answered.
    expect([...clients.acknowledged.values()]).toEqual(expect.arrayContaining(['AWAITING_APPROVAL', 'PENDING']));
    expect(clients.approved.size).toBeGreaterThan(0);
    expect([...view.values()].map((p) => p.status)).toEqual(expect.arrayContaining(['FAILED', 'AWAITING_APPROVAL']));
    expect(clients.codes.get('CONNECTION') ?? 0).toBeGreaterThan(0);

    const broken = {
      // (1) No payout sent twice.
      sentTwice: [...clients.inputs.keys()]
        .filter(
          (ref) => (stats.createRequestsByReferenceId[ref] ?? 0) > 1 || (stats.payoutsByReferenceId[ref] ?? 0) > 1,
        )
        .map((ref) => `${ref}: ${stats.createRequestsByReferenceId[ref]} creates`),
      // (2) None lost: every create answered is there, every answered approval holds, whatever the provider
      // took the gateway knows; no status update lost, no payout blocked for good (UNKNOWN).
      lost: [...clients.acknowledged].filter(([ref]) => !view.has(ref)).map(([ref, s]) => `${ref}: answered ${s}`),
      unapproved: [...clients.approved]
        .filter((ref) => view.get(ref)?.status === 'AWAITING_APPROVAL' || view.get(ref)?.decision !== 'APPROVED')
        .map((ref) => `${ref}: ${JSON.stringify(view.get(ref))}`),
      regressed: [...clients.acknowledged]
        .filter(([ref, s]) => s !== 'AWAITING_APPROVAL' && view.get(ref)?.status === 'AWAITING_APPROVAL')
        .map(([ref, s]) => `${ref}: answered ${s}, now AWAITING_APPROVAL`),
      unsettled: unsettled(),
      // (3) No false FAILED, and a payout still held was never sent.
      falseFailed: [...view]
        .filter(([ref, p]) => p.status === 'FAILED' && records.get(ref) !== 'Failed')
        .map(([ref]) => `${ref}: provider ${records.get(ref)}`),
      heldButSent: [...view]
        .filter(([ref, p]) => p.status === 'AWAITING_APPROVAL' && stats.createRequestsByReferenceId[ref] !== undefined)
        .map(([ref]) => ref),
    };
    const none = Object.fromEntries(Object.keys(broken).map((check) => [check, []]));
    expect({ ...broken, codes: clients.codes }).toEqual({ ...none, codes: clients.codes });

    // (4) The trail the killed processes wrote verifies, against each replica's checkpoint file.
    for (let slot = 0; slot < replicas; slot += 1) {
      const result = await auditVerify(env.DATABASE_URL, [], { ...env, AUDIT_CHECKPOINT_FILE: checkpoints(slot) });
      expect({ code: result.code, output: result.output }).toEqual({ code: 0, output: result.output });
    }
  });
}

describeEachEngine('the write path after SIGKILLs (one gateway)', (databaseEnv) =>
  writePathSurvivesSigkill(databaseEnv, 1),
);

describeEachEngine(
  'the write path after SIGKILLs (two replicas on one database)',
  (databaseEnv) => writePathSurvivesSigkill(databaseEnv, 2),
  { needs: ['replicas'] },
);
