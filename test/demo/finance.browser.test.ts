import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { Stack, startStack } from '../support/stack';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');

jest.setTimeout(90_000);

/** What the page recorded of its audit list: the actions shown, each time the list changed. */
interface Seen {
  auditLists: string[][];
}

/**
 * The demo dashboard as a finance team reads it, under open access (every scope, no token): a
 * payout's audit trail beside its timeline, today's statement and its CSV, reconciliation runs
 * with their balance check, and every amount shown as money.
 */
describeBrowser('the demo dashboard a finance team hands its auditor', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];
  const references: string[] = [];

  beforeAll(async () => {
    stack = await startStack({
      // What SANDBOX_OPENING_BALANCE=1000000 gives the embedded sandbox; a balance read fresh each time.
      sandbox: { openingBalance: 1_000_000 },
      env: { WALLET_BALANCE_CACHE_MS: '0', AUDIT_CHECKPOINT_SECONDS: '1' },
    });
    browser = await launchChromium();
    // Wide enough for the audit trail to sit beside the timeline.
    const context = await localContext(browser, { viewport: { width: 1100, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        pageProblems.push(message.text());
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const texts = (selector: string) => page.locator(selector).allTextContents();
  const balanceShown = (text: string) => page.getByTestId('balance-amount').getByText(text, { exact: true }).waitFor();

  /** Sends a payout from the form and waits until the page shows it paid. */
  async function pay(amount: string): Promise<string> {
    await page.click('#new-reference');
    const referenceId = await page.inputValue('#referenceId');
    await page.fill('#amount', amount);
    await page.click('#send');
    // The page shows this payout once its reference is up; its status follows.
    await page.locator('#payout-ref', { hasText: referenceId }).waitFor();
    await page.getByTestId('status').getByText('SUCCESSFUL', { exact: true }).waitFor({ timeout: 20_000 });
    references.push(referenceId);
    return referenceId;
  }

  it('shows the wallet as money before any payout', async () => {
    await page.goto(`${stack.gateway.url}/demo`);
    await balanceShown('1,000,000.00 ZMW');
  });

  it("shows a payout's audit entries beside its timeline, in order, each hash linked to the one before", async () => {
    await page.evaluate(() => {
      const seen = window as unknown as Seen;
      seen.auditLists = [];
      new MutationObserver(() => {
        const actions = [...document.querySelectorAll('#audit li')].map((li) => li.getAttribute('data-action') ?? '');
        if (actions.length > 0) seen.auditLists.push(actions);
      }).observe(document.getElementById('audit')!, { childList: true });
    });
    const referenceId = await pay('1234.5');
    await page.locator('#audit li[data-action="CALLBACK"]').waitFor();

    const order = ['CREATE_REQUESTED', 'SENT', 'PROVIDER_ANSWERED', 'CALLBACK'];
    const actions = () => page.locator('#audit li').evaluateAll((items) => items.map((li) => li.dataset.action));
    expect(await actions()).toEqual(order);
    // Every list the page showed on the way was the start of that order: nothing appeared out of place.
    const shown = await page.evaluate(() => (window as unknown as Seen).auditLists);
    for (const list of shown) expect(order.slice(0, list.length)).toEqual(list);
    expect(await texts('#audit li .badge')).toEqual(['UNKNOWN', 'UNKNOWN', 'PENDING', 'SUCCESSFUL']);
    expect(await texts('#audit li .actor')).toEqual(['by anonymous']);

    // Each entry shows the start of its hash and of the one it covers: the previous entry's.
    const chain = await page
      .locator('#audit .chain')
      .evaluateAll((lines) => lines.map((line) => [...line.querySelectorAll('code')].map((code) => code.textContent)));
    chain.slice(1).forEach(([, previous], i) => expect(previous).toBe(chain[i][0]));
    expect(await page.locator('#audit [data-link]').evaluateAll((marks) => marks.map((m) => m.dataset.link))).toEqual([
      'start',
      'ok',
      'ok',
      'ok',
    ]);

    const timeline = await page.locator('#timeline').boundingBox();
    const audit = await page.locator('#audit').boundingBox();
    expect(audit!.x).toBeGreaterThanOrEqual(timeline!.x + timeline!.width);
    expect(audit!.y).toBeLessThan(timeline!.y + timeline!.height);

    expect(await page.textContent('#payout-amount')).toBe('1,234.50 ZMW');
    await page.locator(`#history-rows tr[data-ref="${referenceId}"] td.amount`, { hasText: '1,234.50 ZMW' }).waitFor();
    await balanceShown('998,765.50 ZMW');
  });

  it("lists the payout in today's statement, with its amount as money", async () => {
    await page.click('#statement-show');
    const line = page.locator('#statement-rows tr[data-currency="ZMW"][data-status="SUCCESSFUL"]');
    await line.locator('td[data-col="amount"]', { hasText: '1,234.50 ZMW' }).waitFor();
    expect(await line.locator('td').allTextContents()).toEqual(['ZMW', 'SUCCESSFUL', '1', '1,234.50 ZMW']);
  });

  it('downloads the same window as a CSV file: a header row, then the payout', async () => {
    // Listening before the click, so the event cannot pass unseen. The page's note below says whether a file
    // comes; only then is the download awaited (no clock of its own). A refusal leaves it to end at close.
    const downloading = page.waitForEvent('download', { timeout: 0 });
    void downloading.catch(() => undefined);
    await page.click('#statement-download');
    const note = page.locator('#download-note');
    await note.filter({ hasText: /^(CSV downloaded|The gateway refused|No answer)/ }).waitFor();
    expect(await note.textContent()).toBe('CSV downloaded.');
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const lines = readFileSync(await download.path(), 'utf8')
      .split(/\r?\n/)
      .filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/reference/i);
    expect(lines[1]).toContain(references[0]);
  });

  it('runs a reconciliation to DONE and shows its balance check; a second run explains the payout in between', async () => {
    const state = page.getByTestId('reconciliation-state');
    const balanceCheck = () => page.locator('#balance-check-rows td').allTextContents();

    await page.click('#reconcile');
    await state.getByText('DONE', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.textContent('#reconciliation-progress')).toBe('1 of 1 payouts checked');
    expect(await page.textContent('#discrepancies-note')).toMatch(/^None/);
    expect(await texts('#balance-check-rows th')).toEqual([
      'Opening',
      'Closing',
      'Explained by payouts',
      'Unexplained',
    ]);
    expect(await balanceCheck()).toEqual(['998,765.50 ZMW', '998,765.50 ZMW', '0.00 ZMW', '0.00 ZMW']);

    await pay('49.25');
    await balanceShown('998,716.25 ZMW');
    // Starting a run puts the last one's result away: the DONE awaited is the new run's.
    await page.click('#reconcile');
    await state.getByText('DONE', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.textContent('#reconciliation-progress')).toBe('2 of 2 payouts checked');
    // The run opens where the last one closed: the payout in between explains the whole movement.
    expect(await balanceCheck()).toEqual(['998,765.50 ZMW', '998,716.25 ZMW', '-49.25 ZMW', '0.00 ZMW']);

    await page
      .locator('#statement-rows tr[data-status="SUCCESSFUL"] td[data-col="amount"]', { hasText: '1,283.75 ZMW' })
      .waitFor();
    expect(pageProblems).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'finance.png'), fullPage: true });
  });

  it('shows the latest signed checkpoint and that the whole chain verifies', async () => {
    const panel = page.getByTestId('verification');
    const check = async () => {
      const before = Number((await panel.getAttribute('data-checks')) ?? 0);
      await page.click('#verify-trail');
      await page.locator(`[data-testid="verification"][data-checks="${before + 1}"]`).waitFor();
      return (await page.getByTestId('checkpoint').textContent()) ?? '';
    };
    // The head is signed within AUDIT_CHECKPOINT_SECONDS of the last payout: check again until it shows.
    for (let tries = 1; !/^Latest checkpoint: #\d+, signed /.test(await check()); tries += 1)
      if (tries === 50) throw new Error('no checkpoint shown');
    const result = page.getByTestId('verification-result').locator('[data-verified]');
    expect(await result.getAttribute('data-verified')).toBe('true');
    expect(await result.textContent()).toMatch(/^✓ The chain verifies: \d+ entries$/);
    expect(pageProblems).toEqual([]);
  });
});
