import { createServer, AddressInfo } from 'node:net';
import { Browser, Page } from 'playwright-core';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { GatewayProcess, launchGateway } from '../support/process';
import { describeEachEngine } from '../support/modes';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';

const TOKEN = 'tok_dashboard_restart_0123456789abcdef';
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

/** What the page's own script recorded about its dashboard socket (see the init script below). */
interface Seen {
  subscribes: string[];
  errors: string[];
}

/**
 * The demo dashboard open on a gateway process that is killed while payouts settle and started again
 * on the same port; meanwhile another process on the same database creates and settles more.
 * The table ends up with every payout once, in its final status.
 */
describeBrowser('the demo dashboard across a gateway restart', () =>
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
        // The sandbox settles late enough that payouts created just before the kill are still pending when
        // it happens, and retries callbacks over about 25 s, so those to the killed process reach the restarted one.
        const shared = await sharedProvider(databaseEnv(), { settleMs: 1000, callbackRetryBaseMs: 200 });
        sandbox = shared.sandbox;
        env = { ...shared.env, CLIENT_RATE_LIMIT_PER_MIN: '0', CLIENT_TOKENS: TOKEN, LOG_LEVEL: 'info' };
        const port = String(await freePort());
        [a, b] = await Promise.all([
          launchGateway({ ...env, PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` }),
          launchGateway({ ...env, PORT: '0' }),
        ]);
        browser = await launchChromium();
        const context = await localContext(browser);
        page = await context.newPage();
        page.on('pageerror', (error) => pageErrors.push(error.message));
        // Records what the dashboard sends on its socket and every error the gateway sends back.
        await page.addInitScript(() => {
          const Native = window.WebSocket;
          const seen = window as unknown as Seen;
          seen.subscribes = [];
          seen.errors = [];
          window.WebSocket = class extends Native {
            override send(data: string): void {
              if (data.includes('DisbursementEvents')) seen.subscribes.push(data);
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
        await page.goto(`${a.url}/demo`);
        await page.waitForFunction(() =>
          (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
        );
        await page.fill('#token', TOKEN);
        await page.dispatchEvent('#token', 'change');
        await page.locator('#history-live').getByText('Live', { exact: true }).waitFor();
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

      /** Every row of the dashboard's history table, as [referenceId, status]. */
      const tableRows = () =>
        page
          .locator('#history-rows tr')
          .evaluateAll((rows) =>
            rows.map((row) => [row.getAttribute('data-ref'), row.querySelector('.badge')?.textContent ?? null]),
          );

      /** Kills gateway A (a crash: no graceful shutdown), runs `meanwhile`, and starts A again on the same port. */
      async function restartA(meanwhile: () => Promise<void>): Promise<void> {
        const died = new Promise((resolve) => a.child.once('exit', resolve));
        a.child.kill('SIGKILL');
        await died;
        await page.locator('#history-live').getByText('Reconnecting…', { exact: true }).waitFor();
        await meanwhile();
        // The same port, so the page's origin and the provider's callback address are the same again.
        const port = new URL(a.url).port;
        a = await launchGateway({ ...env, PORT: port, PUBLIC_URL: `http://127.0.0.1:${port}` });
      }

      /** Waits until the table holds exactly `refs`, each once, in the final status the store holds. */
      async function tableShows(refs: string[]): Promise<void> {
        const truth = await finalStatuses(a, refs);
        const expected = refs.map((ref) => [ref, truth[ref]]).sort();
        const matches = async () =>
          JSON.stringify([...(await tableRows())].sort()) === JSON.stringify(expected) ? true : undefined;
        await eventually(matches, 600, 100).catch(async () => {
          throw new Error(
            `the table never showed ${JSON.stringify(expected)}; it shows ${JSON.stringify(await tableRows())}, note: "${await page.textContent('#history-note')}", live: "${await page.textContent('#history-live')}"`,
          );
        });
        await page.locator('#history-live').getByText('Live', { exact: true }).waitFor();
        const rows = await tableRows();
        expect(rows).toHaveLength(refs.length);
        expect([...rows].sort()).toEqual(expected);
      }

      const seenOnPage = () =>
        page.evaluate(() => {
          const { subscribes, errors } = window as unknown as Seen;
          return { subscribes, errors };
        });

      // Every payout the merchant has, across the tests of this file.
      const all: string[] = [];

      it('shows every payout once with its final status after the gateway is killed and started again', async () => {
        // Before the restart: two payouts settle while the page watches.
        const before = [await create(a), await create(a, '260971234000')];
        const shown = (ref: string, status: string) =>
          page
            .locator(`#history-rows tr[data-ref="${ref}"] .badge`)
            .getByText(status, { exact: true })
            .waitFor({ timeout: 20_000 });
        await shown(before[0], 'SUCCESSFUL');
        await shown(before[1], 'FAILED');

        // Two payouts still pending when the process dies (a crash, no graceful shutdown): the provider's
        // callbacks for them fail until the gateway is back.
        const pending = [await create(a), await create(a)];
        let elsewhere: string[] = [];
        await restartA(async () => {
          // Meanwhile another process on the same database creates three that settle, one of them FAILED.
          elsewhere = [await create(b), await create(b, '260971234000'), await create(b)];
          await finalStatuses(b, elsewhere);
        });
        all.push(...before, ...pending, ...elsewhere);
        await tableShows(all);

        // It resumed from the last change it had shown (not a reload from now) and was never refused a cursor.
        const seen = await seenOnPage();
        const after = seen.subscribes.map(
          (text) => (JSON.parse(text) as { payload: { variables: { after: string | null } } }).payload.variables.after,
        );
        expect(after.length).toBeGreaterThanOrEqual(2);
        // A cursor is a change-log position and its MAC (change-log.feed.ts).
        expect(after.at(-1)).toEqual(expect.stringMatching(/^\d+\.[\w-]+$/));
        expect(seen.errors).toEqual([]);
        expect(pageErrors).toEqual([]);
      });

      it('loads the table again when it could not while the gateway was away, even if nothing changed meanwhile', async () => {
        // The gateway stops answering HTTP as a change arrives (the page's reload of its table fails), then dies.
        await page.route(`${a.url}/graphql`, (route) => route.abort('connectionrefused'));
        const failedAtOnce = await create(a, '260971234111');
        all.push(failedAtOnce);
        await page.locator('#history-note').getByText('NO_ANSWER', { exact: false }).waitFor();
        await restartA(() => page.unroute(`${a.url}/graphql`));
        await tableShows(all);
        expect((await seenOnPage()).errors).toEqual([]);
        expect(pageErrors).toEqual([]);
      });
    },
    { needs: ['replicas'] },
  ),
);
