import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium } from '../support/browser';
import { go, openConsole } from '../support/console';
import { CREATE_MOBILE, gql, mobileInput, Stack, startStack, uniqueRef } from '../support/stack';

jest.setTimeout(60_000);

/** The console on a gateway with open access (npm start's default): payouts sent, listed and settled live. */
describeBrowser('the console: payouts', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
    page = await openConsole(browser, stack.gateway.url);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('serves the page with a CSP allowing no inline script, no-cache, and hashed assets cached for a year', async () => {
    const res = await fetch(`${stack.gateway.url}/console/payouts`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toMatch(/-[\w-]{8}\.js$/);
    const asset = await fetch(`${stack.gateway.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
  });

  it('keeps the first load within its budget: 300 KB of JavaScript and CSS as transferred (docs/benchmarks.md)', async () => {
    const html = await (await fetch(`${stack.gateway.url}/console`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css'))).toBe(true);
    let transferred = 0;
    for (const asset of assets) {
      // What Chromium asks for; the gateway answers brotli.
      const res = await fetch(`${stack.gateway.url}${asset}`, {
        headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
      });
      expect(res.headers.get('content-encoding')).toBe('br');
      transferred += Number(res.headers.get('content-length'));
      await res.arrayBuffer();
    }
    expect(transferred).toBeLessThanOrEqual(300 * 1024);
  });

  it('sends a mobile money payout from New payout: PENDING at once, then SUCCESSFUL live', async () => {
    await go(page, 'New payout');
    await page.getByLabel('Mobile money number').fill('260971234567');
    await page.getByLabel('Amount').fill('25.50');
    await page.getByLabel('Narration').fill('Driver payout');
    const referenceId = await page.getByLabel('Reference').inputValue();
    await page.getByRole('button', { name: 'Send payout' }).click();
    const status = page.getByRole('status', { name: 'Payout status' });
    await status
      .getByText('PENDING', { exact: true })
      .or(status.getByText('SUCCESSFUL', { exact: true }))
      .waitFor();
    await status.getByText('SUCCESSFUL', { exact: true }).waitFor({ timeout: 20_000 });
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBe(1);
  });

  it("shows the API's error and the field it names, and keeps the reference for a retry", async () => {
    await go(page, 'New payout');
    await page.getByLabel('Mobile money number').fill('260971234567');
    await page.getByLabel('Amount').fill('-3');
    const referenceId = await page.getByLabel('Reference').inputValue();
    await page.getByRole('button', { name: 'Send payout' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('BAD_USER_INPUT').waitFor();
    expect(await page.getByLabel('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Reference').inputValue()).toBe(referenceId);
  });

  it('lists a payout created through the API at once, and settles it there without a reload', async () => {
    await go(page, 'Payouts');
    const referenceId = uniqueRef('api');
    // Its callback comes late enough to see PENDING first.
    const created = await gql(stack.graphqlUrl, CREATE_MOBILE, {
      input: mobileInput({ referenceId, accountNumber: '260971234567' }),
    });
    expect(created.errors).toBeUndefined();
    const row = page.getByRole('row', { name: new RegExp(referenceId) });
    await row.waitFor();
    expect(await row.textContent()).toContain('****4567');
    await row.getByText('SUCCESSFUL', { exact: true }).waitFor({ timeout: 20_000 });
  });

  it('filters by status and by reference, and exports what the filters show as CSV', async () => {
    await go(page, 'Payouts');
    const prefix = uniqueRef('flt');
    for (const suffix of ['a', 'b']) {
      await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ referenceId: `${prefix}-${suffix}` }) });
    }
    await page.getByLabel('Reference or account').fill(prefix);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('row', { name: new RegExp(`${prefix}-b`) }).waitFor();
    expect(await page.getByRole('row').count()).toBe(3);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of file) chunks.push(chunk as Buffer);
    const lines = Buffer.concat(chunks).toString().trim().split('\r\n');
    expect(lines[0]).toMatch(/^referenceId,status,channel/);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual([`${prefix}-a`, `${prefix}-b`]);
  });

  it('opens a payout on its own page with its timeline', async () => {
    const referenceId = uniqueRef('page');
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ referenceId }) });
    await page.goto(`${stack.gateway.url}/console/payouts/${referenceId}`);
    await page.getByRole('heading', { name: `Payout ${referenceId}` }).waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('SUCCESSFUL', { exact: true }).first().waitFor({ timeout: 20_000 });
    expect(await timeline.getByText('PENDING', { exact: true }).count()).toBeGreaterThan(0);
  });

  it('schedules a payout an hour ahead, lists it in Scheduled, and cancels it there: never sent', async () => {
    await go(page, 'New payout');
    await page.getByLabel('Mobile money number').fill('260971234567');
    await page.getByLabel('Amount').fill('10');
    const referenceId = await page.getByLabel('Reference').inputValue();
    const at = new Date(Date.now() + 3_600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    await page
      .getByLabel('Send time (optional)')
      .fill(
        `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`,
      );
    await page.getByRole('button', { name: 'Send payout' }).click();
    await page.getByRole('status', { name: 'Payout status' }).getByText('SCHEDULED', { exact: true }).waitFor();

    await go(page, 'Scheduled');
    const row = page.getByRole('row', { name: `Payout ${referenceId}`, exact: true });
    await row.getByRole('button', { name: 'Cancel', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    const read = await gql<{ disbursement: { status: string } }>(
      stack.graphqlUrl,
      `query($r: ID!) { disbursement(referenceId: $r) { status } }`,
      { r: referenceId },
    );
    expect(read.data?.disbursement.status).toBe('CANCELLED');
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0).toBe(0);
  });

  it('says when its live connection is lost, reconnects, and resumes after the last change it had', async () => {
    // Keeps the page's sockets and what it sends on them, to cut one as a network would.
    const watched = await openConsole(browser, stack.gateway.url, undefined, () => {
      const Native = window.WebSocket;
      const seen = window as unknown as { sockets: WebSocket[]; sent: string[] };
      seen.sockets = [];
      seen.sent = [];
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          seen.sockets.push(this);
        }
        override send(data: string): void {
          seen.sent.push(data);
          super.send(data);
        }
      };
    });
    await watched.getByRole('status').getByText('Live', { exact: true }).waitFor();
    const first = uniqueRef('before');
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ referenceId: first }) });
    await watched
      .getByRole('row', { name: new RegExp(first) })
      .getByText('SUCCESSFUL', { exact: true })
      .waitFor({ timeout: 20_000 });

    await watched.evaluate(() => {
      // 4499: graphql-ws's "terminated", which it retries.
      for (const socket of (window as unknown as { sockets: WebSocket[] }).sockets) socket.close(4499, 'cut');
    });
    await watched.getByText('Live updates lost: reconnecting, then resuming where they stopped').waitFor();
    const during = uniqueRef('during');
    await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ referenceId: during }) });
    await watched.getByRole('status').getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    await watched
      .getByRole('row', { name: new RegExp(during) })
      .getByText('SUCCESSFUL', { exact: true })
      .waitFor({ timeout: 20_000 });

    // The subscription sent again after the reconnect resumes after a cursor, not from now.
    const subscribes = await watched.evaluate(() =>
      (window as unknown as { sent: string[] }).sent.filter((m) => m.includes('PayoutChanges')),
    );
    const afters = subscribes.map(
      (m) => (JSON.parse(m) as { payload: { variables: { after: string | null } } }).payload.variables.after,
    );
    expect(afters[0]).toBeNull();
    expect(afters.at(-1)).toEqual(expect.any(String));
    await watched.context().close();
  });
});
