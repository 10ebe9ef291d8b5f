import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium } from '../support/browser';
import { go, openConsole } from '../support/console';
import { gql, Stack, startStack, uniqueRef } from '../support/stack';

jest.setTimeout(60_000);

/** A payroll file: checked in the browser and by the API, reviewed, sent as a batch, and sent again safely. */
describeBrowser('the console: CSV batches', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const sentOf = (referenceId: string) => stack.sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchChromium();
    page = await openConsole(browser, stack.gateway.url);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('reviews a file with one bad row, sends the rest, and sending it again pays nothing twice', async () => {
    const created = await gql<{ createBeneficiary: { id: string } }>(
      stack.graphqlUrl,
      `mutation($i: BeneficiaryInput!) { createBeneficiary(input: $i) { id } }`,
      { i: { name: `Payroll ${uniqueRef()}`, channel: 'MOBILE_MONEY', accountNumber: '260971110001' } },
    );
    const beneficiaryId = created.data?.createBeneficiary.id ?? '';
    const run = uniqueRef('payroll');
    const file = [
      'recipient,amount,reference,currency,narration',
      `${beneficiaryId},120.00,${run}-1,ZMW,March salary`,
      `260971234567,80.5,${run}-2,,Casual labour`,
      `26097123,10,${run}-3,,Too short a number`,
    ].join('\r\n');
    const choose = () =>
      page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'payroll.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });

    await go(page, 'Batches');
    await choose();
    const review = page.getByRole('region', { name: 'Review' });
    await review.getByText('2 of 3 rows ready to send; 1 with problems will not be sent').waitFor();
    expect(await review.getByRole('row', { name: /26097123 / }).textContent()).toContain(
      'Not sent: recipient is neither',
    );
    expect(sentOf(`${run}-1`) + sentOf(`${run}-2`)).toBe(0);

    await page.getByRole('button', { name: 'Send 2 payouts' }).click();
    await review.getByText('Sent: 2 payouts recorded, 0 refused.', { exact: false }).waitFor();
    expect([sentOf(`${run}-1`), sentOf(`${run}-2`), sentOf(`${run}-3`)]).toEqual([1, 1, 0]);

    // The same file again: the API's check says both are already recorded, and sending returns them, paying nothing.
    await choose();
    await review.getByText('Already recorded', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Send 2 payouts' }).click();
    await review.getByText('Sent: 2 payouts recorded, 0 refused.', { exact: false }).waitFor();
    expect([sentOf(`${run}-1`), sentOf(`${run}-2`)]).toEqual([1, 1]);
  });
});
