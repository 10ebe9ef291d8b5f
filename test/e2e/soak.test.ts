import { randomUUID } from 'node:crypto';
import { ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { GatewayProcess, launchGateway } from '../support/process';
import { QUICK_RECOVERY_ENV, sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, mobileInput, uniqueRef } from '../support/stack';
import { sqliteFile } from '../support/sqlite.engine';

const CONCURRENCY = 40;
/** Each kind of fault on 2 % of creates: 10 % in all. */
const FAULTS = { errorRate: 0.02, resetRate: 0.02, hangRate: 0.02, malformedRate: 0.02, slowBodyRate: 0.02 };
/** Outcomes by account ending: most succeed, some fail at once, some fail after settling. */
const ENDINGS = ['567', '567', '567', '567', '567', '567', '111', '000', '000', '321'];

type Answer = {
  data?: { createMobileMoneyDisbursement?: { status: string } | null } | null;
  errors?: { extensions?: Record<string, unknown> }[];
};
type Row = { referenceId: string; status: string } | null;

const code = (a: Answer) =>
  (a.errors?.[0]?.extensions?.code as string | undefined) ?? a.data?.createMobileMoneyDisbursement?.status ?? 'NONE';

const TOKEN = `soak-${randomUUID()}`;

/**
 * The clients' own connection pool. This process also runs the sandbox and, in the busy case, shares the cores
 * with a spinner: its clock may see a loopback connect take longer than undici's default 10 s connect timeout, a
 * failure of the load generator that says nothing about the gateway.
 */
let clients: Agent;

async function gql<T>(url: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: clients,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.body.json()) as T;
}

/**
 * A child process keeping every core busy (one spinning thread per core), so the gateway, the sandbox
 * and this test contend for CPU: a create then easily outlives UPSTREAM_TIMEOUT_MS while the sandbox is
 * still taking it in, the race a resend could lose.
 */
function busyCores(): ChildProcess {
  const spin = `const { Worker } = require('node:worker_threads');
    const cores = require('node:os').availableParallelism();
    for (let i = 1; i < cores; i += 1) new Worker('for (;;) {}', { eval: true });
    for (;;) {}`;
  return spawn(process.execPath, ['-e', spin], { stdio: 'ignore' });
}

describe.each([
  { load: 'a calm machine', payouts: 2000, busy: false },
  { load: 'both cores kept busy by a child process', payouts: 1000, busy: true },
])('soak on $load', ({ payouts: PAYOUTS, busy }) => {
  // The gateway in a process of its own, as in production: this one runs the clients and the sandbox.
  const file = sqliteFile();
  let sandbox: SandboxHandle;
  let gateway: GatewayProcess;
  let spinner: ChildProcess | undefined;
  beforeAll(async () => {
    clients = new Agent({ connect: { timeout: 120_000 }, headersTimeout: 0, bodyTimeout: 0 });
    const shared = await sharedProvider({ DATABASE_URL: file.url }, { settleMs: 200, callbackRetryBaseMs: 100 });
    sandbox = shared.sandbox;
    gateway = await launchGateway({
      ...shared.env,
      ...QUICK_RECOVERY_ENV,
      CLIENT_TOKENS: TOKEN,
      RECONCILE_PENDING_AFTER_MS: '3000',
    });
    if (busy) spinner = busyCores();
  });
  afterAll(async () => {
    spinner?.kill('SIGKILL');
    await gateway.stop();
    await clients.close();
    await sandbox.close();
    file.remove();
  });

  it(`${PAYOUTS} concurrent payouts with 10 % injected faults end with the provider's status, none sent while the provider held it`, async () => {
    sandbox.setFaults(FAULTS);
    const inputs = Array.from({ length: PAYOUTS }, (_, i) =>
      mobileInput({ referenceId: uniqueRef('soak'), accountNumber: `260971234${ENDINGS[i % ENDINGS.length]}` }),
    );
    const firstAnswers = new Map<string, number>();
    const unavailableBy = new Map<string, number>();
    let retries = 0;
    let next = 0;

    /** Odd-numbered clients never retry an unknown outcome: the rechecker alone settles theirs. */
    async function pay(input: Record<string, unknown>, index: number): Promise<void> {
      const ref = input.referenceId as string;
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const answer = await gql<Answer>(gateway.graphqlUrl, CREATE_MOBILE, { input });
        const c = code(answer);
        if (attempt === 0) firstAnswers.set(c, (firstAnswers.get(c) ?? 0) + 1);
        // A client retries what the gateway says is safe or unknown, with the same referenceId.
        if (c === 'UPSTREAM_UNAVAILABLE') unavailableBy.set(ref, (unavailableBy.get(ref) ?? 0) + 1);
        else if (c !== 'OUTCOME_UNKNOWN' || attempt > 0 || index % 2 === 1) return;
        retries += 1;
      }
    }
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < inputs.length) {
          const index = next++;
          await pay(inputs[index], index);
        }
      }),
    );
    sandbox.setFaults({});

    const refs = inputs.map((i) => i.referenceId as string);
    const readAll = async (): Promise<Row[]> => {
      const rows: Row[] = [];
      for (let i = 0; i < refs.length; i += 100) {
        const res = await gql<{ data: { disbursements: Row[] } }>(
          gateway.graphqlUrl,
          `query M($ids: [ID!]!) { disbursements(referenceIds: $ids) { referenceId status } }`,
          { ids: refs.slice(i, i + 100) },
        );
        rows.push(...res.data.disbursements);
      }
      return rows;
    };
    // Done when the gateway holds the provider's final status for every payout the provider has, and nothing (or
    // UNKNOWN, until the client retries) for one the provider never received. The end states are read together
    // with the provider's, so a payout still on its way in is waited for, never taken as lost.
    let provider = new Map<string, string>();
    const ended = (row: Row, ref: string) => {
      const status = provider.get(ref);
      // The sandbox settles every payout within settleMs: one still Pending there is not done yet.
      if (status) return status.toUpperCase() !== 'PENDING' && row?.status === status.toUpperCase();
      return row === null || row.status === 'UNKNOWN';
    };
    let last: Row[] = [];
    const settled = await eventually(
      async () => {
        provider = new Map(sandbox.records().map((r) => [r.referenceId, r.status]));
        last = await readAll();
        return last.every((row, i) => ended(row, refs[i])) ? last : undefined;
      },
      // A bound, not a speed claim: on a machine loaded by other suites the rechecker needs longer.
      240,
      500,
    ).catch((error: unknown) => {
      const open = last.flatMap((row, i) => (ended(row, refs[i]) ? [] : [`${refs[i]}: ${row?.status ?? 'none'}`]));
      throw new Error(`${open.length} payouts never reached the provider's status: ${open.slice(0, 5).join(', ')}`, {
        cause: error,
      });
    });

    const stats = sandbox.stats();
    const byStatus: Record<string, number> = {};
    for (const row of settled)
      byStatus[row?.status ?? 'not created'] = (byStatus[row?.status ?? 'not created'] ?? 0) + 1;

    // The true invariant: the provider never received a create for a payout it held or was still taking in.
    const repeated = refs.filter((ref) => stats.duplicateCreatesByReferenceId[ref] !== undefined);
    expect(repeated).toEqual([]);
    // And a create was sent again only after an UPSTREAM_UNAVAILABLE (a create that never arrived is not
    // counted at all): a 5xx is an unknown outcome, never sent again inside RESEND_AFTER_SECONDS.
    const extra = refs.filter(
      (ref) => (stats.createRequestsByReferenceId[ref] ?? 0) > 1 + (unavailableBy.get(ref) ?? 0),
    );
    expect(extra).toEqual([]);
    // Every payout the provider has reached the gateway's store with the provider's final status; never FAILED for
    // one it does not have.
    expect(refs.filter((ref, i) => !ended(settled[i], ref))).toEqual([]);
    expect(firstAnswers.get('BAD_USER_INPUT') ?? 0).toBe(0);

    console.log(
      [
        `soak (${busy ? 'both cores busy' : 'calm'}): ${PAYOUTS} payouts, concurrency ${CONCURRENCY}, faults ${JSON.stringify(FAULTS)}`,
        `  first answers: ${JSON.stringify(Object.fromEntries(firstAnswers))}`,
        `  client retries: ${retries}; provider create requests: ${stats.createRequests}; status checks: ${stats.statusRequests}`,
        `  callbacks: ${stats.callbackAttempts} attempts, ${stats.callbacksDelivered} delivered`,
        `  end state: ${JSON.stringify(byStatus)}`,
      ].join('\n'),
    );
  }, 300_000);
});
