import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, Page, Response } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

const TOKEN = 'browser-test-client-token';
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

jest.setTimeout(60_000);

interface OriginServer {
  server: Server;
  origin: string;
}

/** Another origin whose page's own script calls the gateway, as a frontend app would. */
async function startOrigin(): Promise<OriginServer> {
  const html = `<!doctype html><title>another origin</title><output id="result"></output><script>
    const result = document.getElementById('result');
    fetch(new URLSearchParams(location.search).get('gateway'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ${TOKEN}' },
      body: JSON.stringify({ query: '{ __typename }' }),
    }).then((r) => r.json()).then((body) => { result.textContent = 'ok ' + JSON.stringify(body); }, (error) => { result.textContent = 'error ' + error.name; });
  </script>`;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describeBrowser('the frontend path in Chromium', () => {
  let allowed: OriginServer;
  let refused: OriginServer;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    [allowed, refused] = await Promise.all([startOrigin(), startOrigin()]);
    stack = await startStack({
      env: { CORS_ORIGINS: allowed.origin, CLIENT_TOKENS: TOKEN, WALLET_BALANCE_CACHE_MS: '0' },
    });
    browser = await launchChromium();
    // Nothing leaves this machine: Apollo Sandbox's CDN and any other outside address are cut off.
    const context = await localContext(browser, { viewport: { width: 420, height: 900 } });
    page = await context.newPage();
    // A refused CSP source or a script error shows up here; HTTP 4xx answers the page expects do not count.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageProblems.push(message.text());
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await Promise.all([allowed, refused].filter(Boolean).map((o) => closeServer(o.server)));
  });

  async function openDemo(): Promise<Response | null> {
    const response = await page.goto(`${stack.gateway.url}/demo`);
    await page.waitForFunction(() =>
      (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
    );
    return response;
  }

  const timelineStatuses = () =>
    page.locator('#timeline li').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-status')));
  const errorItems = () => page.locator('#errors li');

  /** Waits for `status` in the timeline, or for an error; a failure says what the page showed instead. */
  async function waitForTimeline(status: string): Promise<void> {
    const shown = page.getByTestId('timeline').getByText(status, { exact: true }).or(errorItems()).first();
    await shown.waitFor({ timeout: 20_000 }).catch(async () => {
      throw new Error(
        `no ${status} on the page; timeline: "${await page.textContent('#timeline')}", live: "${await page.textContent('#live')}"`,
      );
    });
    expect(await errorItems().allTextContents()).toEqual([]);
  }

  /** The first error the page shows, as its code and the text a user reads. */
  async function shownError(): Promise<{ code: string | null; text: string | null }> {
    const item = errorItems().first();
    await item.waitFor();
    return { code: await item.getAttribute('data-code'), text: await item.locator('p').textContent() };
  }

  it('asks for the token, then sends a payout and shows PENDING become SUCCESSFUL live', async () => {
    const response = await openDemo();
    // The page, its script and its websocket live within a policy that allows only this origin.
    expect(response?.headers()['content-security-policy']).toContain("connect-src 'self'");
    await page.click('#send');
    expect(await shownError()).toEqual({
      code: 'UNAUTHENTICATED',
      text: expect.stringContaining('enter it under “Bearer token”'),
    });
    const reference = await page.inputValue('#referenceId');

    await page.fill('#token', TOKEN);
    await page.fill('#narration', 'Browser test');
    await page.click('#send');
    await waitForTimeline('SUCCESSFUL');

    expect(await timelineStatuses()).toEqual(['PENDING', 'SUCCESSFUL']);
    expect(await page.textContent('#payout-ref')).toBe(reference);
    expect(await page.textContent('#status')).toBe('SUCCESSFUL');
    expect(await page.textContent('#payout-amount')).toBe('150.75 ZMW');
    expect(await page.textContent('#payment-type')).toBe('OPERATOR_A_MONEY');
    await page.getByText('Final status reached; live updates ended.').waitFor();
    // The form is ready for the next payout with a reference of its own.
    expect(await page.inputValue('#referenceId')).not.toBe(reference);
    expect(await page.evaluate(() => sessionStorage.getItem('payout-demo:token'))).toBe(TOKEN);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'demo.png'), fullPage: true });
  });

  it('shows an account ending 000 end FAILED with the provider message', async () => {
    await openDemo();
    // The token survives a reload in the same tab.
    expect(await page.inputValue('#token')).toBe(TOKEN);
    await page.click('[data-ending="000"]');
    expect(await page.inputValue('#accountNumber')).toBe('260971234000');
    await page.click('#send');
    await waitForTimeline('FAILED');

    expect(await timelineStatuses()).toEqual(['PENDING', 'FAILED']);
    const failedRow = await page.textContent('#timeline li[data-status="FAILED"]');
    expect(failedRow).toContain('Transaction failed');
    expect(await page.textContent('#status-text')).toMatch(/^Not paid: Transaction failed/);
  });

  it('explains errors by their code', async () => {
    await openDemo();
    await page.click('[data-ending="500"]');
    await page.click('#send');
    // A provider 500 may have created the payout: the same reference, never a new one.
    expect(await shownError()).toEqual({
      code: 'OUTCOME_UNKNOWN',
      text: expect.stringContaining('retry with the same one'),
    });

    await page.fill('#accountNumber', '260971234567');
    await page.fill('#amount', '1.234');
    await page.click('#send');
    expect(await shownError()).toEqual({ code: 'BAD_USER_INPUT', text: 'Please correct amount.' });
    // Nothing on the demo page so far was refused by its CSP or threw.
    expect(pageProblems).toEqual([]);
  });

  it('is a dashboard: the balance, a CSV batch with a result per row, and the history live with filter and paging', async () => {
    await openDemo();
    const balance = () => page.textContent('#balance-amount');
    await page.waitForFunction(() => /^\d/.test(document.getElementById('balance-amount')?.textContent ?? ''));
    // Shown as money: thousands grouped, two decimals.
    expect(await balance()).toMatch(/^\d{1,3}(,\d{3})*\.\d\d ZMW$/);
    const before = Number((await balance())!.split(' ')[0].replaceAll(',', ''));
    await page.getByText('Live', { exact: true }).waitFor();

    const run = randomUUID().slice(0, 8);
    const lines = ['referenceId,amount,currency,accountNumber,narration'];
    for (let i = 0; i < 10; i += 1) lines.push(`csv-${run}-${i},10,ZMW,260971234567,"Payroll, line ${i}"`);
    lines.push(`csv-${run}-failing,10,ZMW,260971234111,`, `csv-${run}-invalid,1.234,ZMW,260971234567,`);
    await page.setInputFiles('#batch-file', {
      name: 'payroll.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\r\n')),
    });
    await page.click('#batch-send');
    await page.getByText('11 of 12 payouts recorded', { exact: false }).waitFor();
    const results = await page.locator('#batch-rows tr').evaluateAll((rows) => rows.map((row) => row.textContent));
    expect(results).toHaveLength(12);
    expect(results.slice(0, 10).every((text) => text?.includes('PENDING'))).toBe(true);
    expect(results[10]).toContain('FAILED');
    expect(results[11]).toContain('BAD_USER_INPUT');

    // The balance dropped by the 100 paid out.
    const expected = (before - 100).toLocaleString('en-US', { minimumFractionDigits: 2 });
    await page.waitForFunction(
      (text) => document.getElementById('balance-amount')?.textContent === text,
      `${expected} ZMW`,
    );

    // The history shows the batch newest first, and its payouts turn SUCCESSFUL in place, through the live stream.
    const shownRefs = () =>
      page.locator('#history-rows tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-ref')));
    await page
      .locator(`#history-rows tr[data-ref="csv-${run}-9"] .badge`)
      .getByText('SUCCESSFUL')
      .waitFor({ timeout: 20_000 });
    const newest = await shownRefs();
    expect(newest).toHaveLength(10);
    expect(newest.every((ref) => ref?.startsWith(`csv-${run}-`))).toBe(true);

    await page.selectOption('#history-status', 'FAILED');
    // Only FAILED payouts: the batch's …111 and the …000 payout sent from the form earlier.
    await page.waitForFunction(() => {
      const badges = [...document.querySelectorAll('#history-rows .badge')].map((badge) => badge.textContent);
      return badges.length === 2 && badges.every((status) => status === 'FAILED');
    });
    expect(await shownRefs()).toContain(`csv-${run}-failing`);

    await page.selectOption('#history-status', '');
    // The FAILED view also shows the batch's failing row: wait for the unfiltered page itself.
    await page.waitForFunction(() => document.querySelectorAll('#history-rows tr').length === 10);
    await page.locator(`#history-rows tr[data-ref="csv-${run}-failing"]`).waitFor();
    const firstPage = await shownRefs();
    await page.click('#history-next');
    await page.waitForFunction(
      (first) => document.querySelector('#history-rows tr')?.getAttribute('data-ref') !== first,
      firstPage[0],
    );
    const secondPage = await shownRefs();
    expect(secondPage.filter((ref) => firstPage.includes(ref))).toEqual([]);
    // The 11 recorded payouts of the batch are the newest: ten on the first page, the eleventh first on the second.
    expect([...firstPage, secondPage[0]].sort()).toEqual(
      [...Array.from({ length: 10 }, (_, i) => `csv-${run}-${i}`), `csv-${run}-failing`].sort(),
    );
    await page.click('#history-previous');
    await page.waitForFunction(
      (first) => document.querySelector('#history-rows tr')?.getAttribute('data-ref') === first,
      firstPage[0],
    );
    expect(pageProblems).toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
  });

  it("resumes the dashboard's live history after its socket drops, after the last change it showed", async () => {
    // Keeps the page's sockets and what it sends on them, to cut the dashboard's and read its subscribes.
    await page.addInitScript(() => {
      const Native = window.WebSocket;
      const seen = window as unknown as { dashboardSocket?: WebSocket; subscribes: string[] };
      seen.subscribes = [];
      window.WebSocket = class extends Native {
        override send(data: string): void {
          if (data.includes('DisbursementEvents')) {
            seen.dashboardSocket = this;
            seen.subscribes.push(data);
          }
          super.send(data);
        }
      };
    });
    await openDemo();
    await page.getByText('Live', { exact: true }).waitFor();
    const create = async () => {
      const input = mobileInput();
      expect(
        (await gql(stack.graphqlUrl, CREATE_MOBILE, { input }, { authorization: `Bearer ${TOKEN}` })).errors,
      ).toBeUndefined();
      return input.referenceId as string;
    };
    const settled = (ref: string) =>
      page.locator(`#history-rows tr[data-ref="${ref}"] .badge`).getByText('SUCCESSFUL').waitFor({ timeout: 20_000 });
    await settled(await create());

    await page.evaluate(() => (window as unknown as { dashboardSocket: WebSocket }).dashboardSocket.close());
    const missed = [await create(), await create(), await create()];
    for (const ref of missed) await settled(ref);
    const subscribes = await page.evaluate(() => (window as unknown as { subscribes: string[] }).subscribes);
    const after = subscribes.map(
      (text) => (JSON.parse(text) as { payload: { variables: { after: string | null } } }).payload.variables.after,
    );
    // The first subscribe follows from now; the one after the drop names the last change shown.
    expect(after[0]).toBeNull();
    expect(after.at(-1)).toEqual(expect.stringMatching(/^\d+\./));
    expect(await page.textContent('#history-live')).toBe('Live');
    expect(pageProblems).toEqual([]);
  });

  it('lets an allowed origin call the gateway and refuses another origin', async () => {
    const call = async (origin: string) => {
      await page.goto(`${origin}/?gateway=${encodeURIComponent(stack.graphqlUrl)}`);
      await page.waitForFunction(() => document.getElementById('result')?.textContent !== '');
      return page.textContent('#result');
    };
    expect(await call(allowed.origin)).toBe('ok {"data":{"__typename":"Query"}}');
    // CORS compares the exact origin: the same host on another port is another origin.
    expect(await call(refused.origin)).toBe('error TypeError');
  });

  it('serves the Apollo Sandbox landing page at GET /graphql', async () => {
    const response = await page.goto(stack.graphqlUrl, { waitUntil: 'domcontentloaded' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    expect(await page.title()).toBe('Apollo Server');
    // Its app comes from Apollo's CDN (cut off here); the markup it mounts into is served by the gateway.
    expect(await page.locator('#embeddableSandbox').count()).toBe(1);
    expect(await response?.text()).toContain('embeddable-sandbox.cdn.apollographql.com');
  });
});
