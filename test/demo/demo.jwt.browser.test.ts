import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { TestIdp } from '../support/idp';
import { Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

describeBrowser('the demo page with a pasted JWT', () => {
  let idp: TestIdp;
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    idp = await TestIdp.start();
    stack = await startStack({
      env: { JWT_JWKS_URL: idp.jwksUrl, JWT_ISSUER: idp.issuer, JWT_AUDIENCE: idp.audience },
    });
    browser = await launchChromium();
    const context = await localContext(browser);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
  });

  it('refuses a read-only token naming payouts:write, then pays out and follows it live with a payouts:write token', async () => {
    await page.goto(`${stack.gateway.url}/demo`);
    await page.waitForFunction(() =>
      (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
    );
    await page.fill('#token', await idp.sign({ claims: { merchant_id: 'default', scope: 'payouts:read' } }));
    await page.click('#send');
    const error = page.locator('#errors li').first();
    await error.waitFor();
    expect(await error.getAttribute('data-code')).toBe('FORBIDDEN');
    expect(await error.textContent()).toContain('payouts:write');

    await page.fill(
      '#token',
      await idp.sign({ claims: { merchant_id: 'default', scope: 'payouts:read payouts:write' } }),
    );
    await page.click('#send');
    await page.getByTestId('timeline').getByText('SUCCESSFUL', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#errors li').count()).toBe(0);
  });
});
