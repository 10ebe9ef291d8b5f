import { randomUUID } from 'node:crypto';
import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

/** The dashboard's scheduled payouts: a "send at" on the form and the batch upload, the list, and its Cancel button. */
describeBrowser('the demo dashboard with scheduled payouts', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  const scheduledRow = (referenceId: string) => page.locator(`#scheduled-rows tr[data-ref="${referenceId}"]`);
  const sentOf = (referenceId: string) => stack.sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
    const context = await localContext(browser);
    page = await context.newPage();
    await page.goto(`${stack.gateway.url}/demo`);
    await page.waitForFunction(() =>
      (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
    );
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('a payout sent with a "send at" an hour ahead is SCHEDULED, listed, and cancelled there: never sent', async () => {
    const referenceId = await page.inputValue('#referenceId');
    // datetime-local takes the browser's local time.
    await page.evaluate(() => {
      const at = new Date(Date.now() + 3_600_000);
      const pad = (n: number) => String(n).padStart(2, '0');
      (document.getElementById('sendAt') as HTMLInputElement).value =
        `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
    });
    await page.click('#send');
    await page.getByTestId('status').getByText('SCHEDULED', { exact: true }).waitFor();
    expect(await page.getByTestId('status-text').textContent()).toMatch(/^Scheduled: sent once at /);

    await scheduledRow(referenceId).waitFor();
    await scheduledRow(referenceId).locator('button[data-action="cancel"]').click();
    await scheduledRow(referenceId).waitFor({ state: 'detached' });
    expect(await page.getByTestId('scheduled-note').textContent()).toContain('cancelled: CANCELLED, never sent');
    await page.getByTestId('timeline').getByText('CANCELLED', { exact: true }).waitFor();
    expect(sentOf(referenceId)).toBe(0);
  });

  it('a batch file with a sendAt column schedules its lines', async () => {
    const run = randomUUID().slice(0, 8);
    const sendAt = new Date(Date.now() + 3_600_000).toISOString();
    const lines = [
      'referenceId,amount,currency,accountNumber,narration,sendAt',
      `sched-csv-${run}-0,10,ZMW,260971234567,,${sendAt}`,
      `sched-csv-${run}-1,10,ZMW,260971234567,,`,
    ];
    await page.setInputFiles('#batch-file', {
      name: 'scheduled.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\r\n')),
    });
    await page.click('#batch-send');
    await page.getByText('2 of 2 payouts recorded', { exact: false }).waitFor();
    const results = await page.locator('#batch-rows tr').evaluateAll((rows) => rows.map((row) => row.textContent));
    expect(results[0]).toContain('SCHEDULED');
    expect(results[1]).toContain('PENDING');
    await page.click('#scheduled-refresh');
    await scheduledRow(`sched-csv-${run}-0`).waitFor();
    expect(sentOf(`sched-csv-${run}-0`)).toBe(0);
  });
});
