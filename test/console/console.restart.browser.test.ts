import { AddressInfo, createServer } from 'node:net';
import { Browser, Page } from 'playwright-core';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { describeBrowser, launchChromium } from '../support/browser';
import { openConsole } from '../support/console';
import { describeEachEngine } from '../support/modes';
import { GatewayProcess, launchGateway } from '../support/process';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';

const TOKEN = 'tok_console_restart_0123456789abcdef';
const AUTH = `Bearer ${TOKEN}`;
const FINAL = ['SUCCESSFUL', 'FAILED'];
const HISTORY = `query History { disbursementHistory(first: 50) { edges { node { referenceId status } } } }`;

jest.setTimeout(120_000);

/** A port free now: the gateway is started on it twice, so the page's origin survives the restart. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What the page sent on its sockets, and every error the gateway sent back (see the init script). */
interface Seen {
  subscribes: string[];
  errors: string[];
}

/**
 * The console's Payouts open on a gateway process that is killed while payouts settle and started
 * again on the same port; meanwhile another process on the same database creates and settles more.
 * The list ends up with every payout once, in its final status, resumed from its last cursor.
 */
describeBrowser('the console across a gateway restart', () =>
  describeEachEngine(
    'on a database another replica shares',
    (databaseEnv) => {
      let sandbox: SandboxHandle;
      let env: Record<string, string>;
      let a: GatewayProcess;
      let b: GatewayProcess;
      let browser: Browser;
      let page: Page;
      const pageErrors: string[] = [];

      beforeAll(async () => {
        knownSecrets.add(TOKEN);
        // Settles late enough that payouts created just before the kill are still pending when it
        // happens, and retries callbacks over about 25 s, so those to the killed process reach the restarted one.
        const shared = await sharedProvider(databaseEnv(), { settleMs: 1000, callbackRetryBaseMs: 200 });
        sandbox = shared.sandbox;
        env = { ...shared.env, CLIENT_RATE_LIMIT_PER_MIN: '0', CLIENT_TOKENS: TOKEN, LOG_LEVEL: 'info' };
        const port = String(await freePort());
        [a, b] = await Promise.all([
          launchGateway({ ...env, PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` }),
          launchGateway({ ...env, PORT: '0' }),
        ]);
        browser = await launchChromium();
        page = await openConsole(browser, a.url, TOKEN, () => {
          const Native = window.WebSocket;
          const seen = window as unknown as Seen;
          seen.subscribes = [];
          seen.errors = [];
          window.WebSocket = class extends Native {
            override send(data: string): void {
              if (data.includes('PayoutChanges')) seen.subscribes.push(data);
              super.send(data);
            }
            constructor(url: string | URL, protocols?: string | string[]) {
              super(url, protocols);
              this.addEventListener('message', (event: MessageEvent<string>) => {
                if (event.data.includes('"errors"')) seen.errors.push(event.data);
              });
            }
          };
        });
        page.on('pageerror', (error) => pageErrors.push(error.message));
        await page.getByRole('status').getByText('Live', { exact: true }).waitFor();
      });

      afterAll(async () => {
        await browser?.close();
        await Promise.all([a?.stop(), b?.stop()]);
        await sandbox?.close();
      });

      async function create(gateway: GatewayProcess, accountNumber = '260971234567'): Promise<string> {
        const input = mobileInput({ accountNumber });
        const res = await gql(gateway.graphqlUrl, CREATE_MOBILE, { input }, { authorization: AUTH });
        expect(res.errors).toBeUndefined();
        return input.referenceId as string;
      }

      /** The store's own view, asked of `gateway`, once every payout in `refs` is final. */
      async function finalStatuses(gateway: GatewayProcess, refs: string[]): Promise<Record<string, string>> {
        return eventually(
          async () => {
            const res = await gql<{
              disbursementHistory: { edges: { node: { referenceId: string; status: string } }[] };
            }>(gateway.graphqlUrl, HISTORY, {}, { authorization: AUTH });
            const nodes = res.data?.disbursementHistory.edges.map((e) => e.node) ?? [];
            const statuses = Object.fromEntries(nodes.map((n) => [n.referenceId, n.status]));
            return refs.every((ref) => FINAL.includes(statuses[ref])) ? statuses : undefined;
          },
          400,
          100,
        );
      }

      /** Every row of the Payouts list, as [referenceId, status]. */
      const listed = () =>
        page
          .getByRole('table')
          .locator('tbody tr')
          .evaluateAll((rows) =>
            rows.map((row) => [row.getAttribute('data-reference'), row.querySelector('.badge')?.textContent ?? null]),
          );

      it('lists every payout once with its final status after the gateway is killed and started again', async () => {
        const before = [await create(a), await create(a, '260971234000')];
        const shown = (ref: string, status: string) =>
          page
            .getByRole('row', { name: new RegExp(ref) })
            .getByText(status, { exact: true })
            .waitFor({ timeout: 20_000 });
        await shown(before[0], 'SUCCESSFUL');
        await shown(before[1], 'FAILED');

        // Two still pending when the process dies (a crash, no graceful shutdown): the provider's
        // callbacks for them fail until the gateway is back.
        const pending = [await create(a), await create(a)];
        const died = new Promise((resolve) => a.child.once('exit', resolve));
        a.child.kill('SIGKILL');
        await died;
        await page.getByText('Live updates lost: reconnecting, then resuming where they stopped').waitFor();
        // Meanwhile another process on the same database creates three that settle, one of them FAILED.
        const elsewhere = [await create(b), await create(b, '260971234000'), await create(b)];
        await finalStatuses(b, elsewhere);
        // The same port, so the page's origin and the provider's callback address are the same again.
        const port = new URL(a.url).port;
        a = await launchGateway({ ...env, PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` });

        const all = [...before, ...pending, ...elsewhere];
        const truth = await finalStatuses(a, all);
        const expected = all.map((ref) => [ref, truth[ref]]).sort();
        await eventually(
          async () => (JSON.stringify([...(await listed())].sort()) === JSON.stringify(expected) ? true : undefined),
          600,
          100,
        ).catch(async () => {
          throw new Error(
            `the list never showed ${JSON.stringify(expected)}; it shows ${JSON.stringify(await listed())}`,
          );
        });
        await page.getByRole('status').getByText('Live', { exact: true }).waitFor();

        // It resumed from the last change it had (not from now), and was never refused a cursor.
        const seen = await page.evaluate(() => {
          const { subscribes, errors } = window as unknown as Seen;
          return { subscribes, errors };
        });
        const after = seen.subscribes.map(
          (text) => (JSON.parse(text) as { payload: { variables: { after: string | null } } }).payload.variables.after,
        );
        expect(after.length).toBeGreaterThanOrEqual(2);
        // A cursor is a change-log position and its MAC (change-log.feed.ts).
        expect(after.at(-1)).toEqual(expect.stringMatching(/^\d+\.[\w-]+$/));
        expect(seen.errors).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    },
    { needs: ['replicas'] },
  ),
);
