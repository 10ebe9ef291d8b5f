import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium } from '../support/browser';
import { go, openConsole, overflow, seriousViolations } from '../support/console';
import { TestIdp } from '../support/idp';
import { CREATE_MOBILE, gql, mobileInput, Stack, startStack } from '../support/stack';

jest.setTimeout(90_000);

const MANIFEST = join(__dirname, '..', '..', 'console', 'src', 'gql', 'persisted-documents.json');
const SCREENS = ['Payouts', 'New payout', 'Approvals', 'Scheduled', 'Beneficiaries', 'Batches', 'Finance', 'Audit'];

/**
 * Every screen, with something on it, on a gateway that runs only the console's trusted documents:
 * nothing refused, no serious or critical axe-core violation at 1,400 px, no horizontal scroll at 390 px.
 */
describeBrowser('the console: every screen', () => {
  let idp: TestIdp;
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let token: string;
  const referenceId = `seen-${Date.now()}`;

  const check = async (name: string) => {
    expect({ name, alerts: await page.getByRole('alert').allTextContents() }).toEqual({ name, alerts: [] });
    expect({ name, violations: await seriousViolations(page) }).toEqual({ name, violations: [] });
    await page.setViewportSize({ width: 390, height: 844 });
    expect({ name, overflow: await overflow(page) }).toEqual({ name, overflow: 0 });
    await page.setViewportSize({ width: 1400, height: 900 });
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    stack = await startStack({
      env: {
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        TRUSTED_DOCUMENTS: MANIFEST,
        TRUSTED_DOCUMENTS_MODE: 'enforce',
        PAYOUT_CONTROLS: JSON.stringify({ approvalAbove: { ZMW: '1000' }, beneficiaryApproval: true }),
      },
    });
    token = await idp.sign({
      claims: {
        merchant_id: 'default',
        sub: 'dana',
        scope: 'payouts:read payouts:write payouts:approve audit:read beneficiaries:read beneficiaries:write',
      },
    });
    // Something on every screen: payouts (one held for approval, one scheduled), and a beneficiary.
    const creator = {
      authorization: `Bearer ${await idp.sign({ claims: { merchant_id: 'default', sub: 'erin', scope: 'payouts:read payouts:write beneficiaries:write' } })}`,
    };
    const send = (input: Record<string, unknown>) =>
      gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput(input) }, creator);
    // Trusted documents refuse any other text, as these (not the console's) are: the gateway checks the token first.
    expect((await send({ referenceId })).errors?.[0]?.extensions?.code).toBe('QUERY_NOT_IN_SAFELIST');
    browser = await launchChromium();
    page = await openConsole(browser, stack.gateway.url, token);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
  });

  it('the sign-in screen', async () => {
    const signIn = await (await browser.newContext()).newPage();
    await signIn.goto(`${stack.gateway.url}/console`);
    await signIn.getByLabel('Token').waitFor();
    expect(await seriousViolations(signIn)).toEqual([]);
    await signIn.setViewportSize({ width: 390, height: 844 });
    expect(await overflow(signIn)).toBe(0);
    await signIn.context().close();
  });

  it('works through the console alone, then every screen passes', async () => {
    // The payouts are made through the console itself, since the gateway runs nothing else.
    const pay = async (amount: string, sendAt?: string) => {
      await go(page, 'New payout');
      await page.getByLabel('Mobile money number').fill('260971234567');
      await page.getByLabel('Amount').fill(amount);
      if (sendAt) await page.getByLabel('Send time (optional)').fill(sendAt);
      const reference = await page.getByLabel('Reference').inputValue();
      await page.getByRole('button', { name: 'Send payout' }).click();
      await page.getByRole('status', { name: 'Payout status' }).waitFor();
      return reference;
    };
    const paid = await pay('42');
    await pay('5000');
    const at = new Date(Date.now() + 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    await pay('7', `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T09:00`);
    await go(page, 'Beneficiaries');
    await page.getByRole('button', { name: 'Add beneficiary' }).click();
    await page.getByRole('form', { name: 'New beneficiary' }).getByLabel('Name').fill('Chanda Mulenga');
    await page.getByRole('form', { name: 'New beneficiary' }).getByLabel('Mobile money number').fill('260971230000');
    await page.getByRole('button', { name: 'Save beneficiary' }).click();
    await page.getByText('Chanda Mulenga saved', { exact: false }).waitFor();

    for (const screen of SCREENS) {
      await go(page, screen);
      if (screen === 'Finance') {
        await page.getByRole('button', { name: 'Show statement' }).click();
        await page.getByRole('table', { name: 'Statement lines' }).waitFor();
      }
      if (screen === 'Payouts') await page.getByRole('row', { name: new RegExp(paid) }).waitFor();
      await check(screen);
    }
    await page.goto(`${stack.gateway.url}/console/payouts/${paid}`);
    await page
      .getByRole('list', { name: 'Timeline' })
      .getByText('SUCCESSFUL', { exact: true })
      .first()
      .waitFor({ timeout: 20_000 });
    await check('a payout');
  });
});
