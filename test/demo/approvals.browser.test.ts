import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { TestIdp } from '../support/idp';
import { Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

/** Two people at two browsers: alice asks for payouts, bob approves or rejects them on the demo dashboard. */
describeBrowser('the demo dashboard under payout controls, with two people', () => {
  let idp: TestIdp;
  let stack: Stack;
  let browser: Browser;
  let alice: Page;
  let bob: Page;

  const open = async (token: string): Promise<Page> => {
    const context = await localContext(browser);
    const page = await context.newPage();
    await page.goto(`${stack.gateway.url}/demo`);
    await page.waitForFunction(() =>
      (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
    );
    await page.fill('#token', token);
    await page.dispatchEvent('#token', 'change');
    return page;
  };
  const queueRow = (page: Page, referenceId: string) => page.locator(`#approval-rows tr[data-ref="${referenceId}"]`);
  const ask = async (): Promise<string> => {
    await alice.click('#new-reference');
    const referenceId = await alice.inputValue('#referenceId');
    await alice.click('#send');
    await alice.getByTestId('status').getByText('AWAITING_APPROVAL', { exact: true }).waitFor();
    return referenceId;
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    stack = await startStack({
      env: {
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        PAYOUT_CONTROLS: JSON.stringify({
          approvalAbove: { ZMW: '100' },
          dailyLimit: { ZMW: '100000' },
          userDailyLimit: { ZMW: '50000' },
        }),
      },
    });
    browser = await launchChromium();
    const sign = (sub: string, scope: string) => idp.sign({ claims: { merchant_id: 'default', sub, scope } });
    alice = await open(await sign('alice', 'payouts:read payouts:write payouts:approve'));
    bob = await open(await sign('bob', 'payouts:read payouts:approve'));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
  });

  it("alice's payout waits; she cannot approve it; bob sees who asked and approves it; it is paid once", async () => {
    const referenceId = await ask();
    expect(await alice.getByTestId('status-text').textContent()).toMatch(/approval/);
    await alice.locator('#allowance-rows td[data-col="yours"]', { hasText: '49,849.25 ZMW' }).waitFor();

    const row = queueRow(bob, referenceId);
    await row.waitFor();
    expect(await row.locator('td[data-col="requested-by"]').textContent()).toBe('alice');
    await bob.locator('#allowance-rows td[data-col="yours"]', { hasText: '50,000.00 ZMW' }).waitFor();

    await queueRow(alice, referenceId).waitFor();
    await queueRow(alice, referenceId).locator('button[data-action="approve"]').click();
    await alice.locator('#approvals-note[data-code="FORBIDDEN"]').waitFor();
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBeUndefined();

    await row.locator('button[data-action="approve"]').click();
    await row.waitFor({ state: 'detached' });
    await alice.getByTestId('timeline').getByText('SUCCESSFUL', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await alice.locator('#timeline .actor').allTextContents()).toEqual(['by alice', 'by bob']);
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBe(1);
    await bob
      .locator(`#history-rows tr[data-ref="${referenceId}"] td[data-col="actor"]`, { hasText: 'alice' })
      .waitFor();
  });

  it('bob rejects with a reason: alice sees it CANCELLED, never sent, and gets her allowance back', async () => {
    const referenceId = await ask();
    await bob.fill('#reject-reason', 'wrong account');
    const row = queueRow(bob, referenceId);
    await row.locator('button[data-action="reject"]').click();
    await row.waitFor({ state: 'detached' });
    await alice.getByTestId('status').getByText('CANCELLED', { exact: true }).waitFor();
    await alice
      .getByTestId('timeline')
      .getByText(/Rejected by bob: wrong account/)
      .waitFor();
    await alice.click('#approvals-refresh');
    await alice.locator('#allowance-rows td[data-col="yours"]', { hasText: '49,849.25 ZMW' }).waitFor();
    expect(stack.sandbox.stats().createRequestsByReferenceId[referenceId]).toBeUndefined();
  });
});
