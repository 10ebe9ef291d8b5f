import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium } from '../support/browser';
import { go, openConsole } from '../support/console';
import { TestIdp } from '../support/idp';
import { gql, Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

/** Two people at two browsers under the payout controls: alice asks, bob approves; and a clerk who only reads. */
describeBrowser('the console: approvals between two people', () => {
  let idp: TestIdp;
  let stack: Stack;
  let browser: Browser;
  let alice: Page;
  let bob: Page;
  const sentOf = (referenceId: string) => stack.sandbox.stats().createRequestsByReferenceId[referenceId] ?? 0;
  const sign = (sub: string, scope: string) => idp.sign({ claims: { merchant_id: 'default', sub, scope } });

  beforeAll(async () => {
    idp = await TestIdp.start();
    stack = await startStack({
      env: {
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        PAYOUT_CONTROLS: JSON.stringify({ approvalAbove: { ZMW: '100' }, beneficiaryApproval: true }),
      },
    });
    browser = await launchChromium();
    const everything = 'payouts:read payouts:write payouts:approve beneficiaries:read beneficiaries:write';
    alice = await openConsole(browser, stack.gateway.url, await sign('alice', everything));
    bob = await openConsole(browser, stack.gateway.url, await sign('bob', everything));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
  });

  it('holds a large payout, which bob approves from Approvals and which is sent once; alice is not offered her own', async () => {
    await go(alice, 'New payout');
    await alice.getByLabel('Mobile money number').fill('260971234567');
    await alice.getByLabel('Amount').fill('2500');
    const referenceId = await alice.getByLabel('Reference').inputValue();
    await alice.getByRole('button', { name: 'Send payout' }).click();
    const status = alice.getByRole('status', { name: 'Payout status' });
    await status.getByText('AWAITING_APPROVAL', { exact: true }).waitFor();
    expect(sentOf(referenceId)).toBe(0);

    await go(alice, 'Approvals');
    const own = alice.getByRole('listitem', { name: `Payout ${referenceId}` });
    await own.getByText('Your own request: another person approves it.').waitFor();
    expect(await own.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);

    await go(bob, 'Approvals');
    const held = bob.getByRole('listitem', { name: `Payout ${referenceId}` });
    expect(await held.textContent()).toContain('2,500.00 ZMW');
    expect(await held.textContent()).toContain('260971234567');
    expect(await held.textContent()).toContain('alice');
    await held.getByRole('button', { name: 'Approve', exact: true }).click();
    await held.waitFor({ state: 'detached' });

    // Alice's list follows live: approved, sent, settled.
    await go(alice, 'Payouts');
    await alice
      .getByRole('row', { name: new RegExp(referenceId) })
      .getByText('SUCCESSFUL', { exact: true })
      .waitFor({ timeout: 20_000 });
    expect(sentOf(referenceId)).toBe(1);
  });

  it('bob rejects a held payout with a reason: CANCELLED, never sent', async () => {
    await go(alice, 'New payout');
    await alice.getByLabel('Mobile money number').fill('260971234567');
    await alice.getByLabel('Amount').fill('900');
    const referenceId = await alice.getByLabel('Reference').inputValue();
    await alice.getByRole('button', { name: 'Send payout' }).click();
    await alice
      .getByRole('status', { name: 'Payout status' })
      .getByText('AWAITING_APPROVAL', { exact: true })
      .waitFor();

    await go(bob, 'Approvals');
    const held = bob.getByRole('listitem', { name: `Payout ${referenceId}` });
    const reject = held.getByRole('button', { name: 'Reject', exact: true });
    await reject.click();
    // The form takes the Reject button's place: one button named Reject on the card, the form's.
    await held.getByLabel('Reason').fill('Duplicate invoice');
    expect(await reject.count()).toBe(1);
    await reject.click();
    await held.waitFor({ state: 'detached' });
    await alice.getByRole('status', { name: 'Payout status' }).getByText('CANCELLED', { exact: true }).waitFor();
    expect(sentOf(referenceId)).toBe(0);
  });

  it("a beneficiary's changed details await approval and are approved by a second person", async () => {
    await go(alice, 'Beneficiaries');
    const name = `Mwila ${Date.now()}`;
    await alice.getByRole('button', { name: 'Add beneficiary' }).click();
    const form = alice.getByRole('form', { name: 'New beneficiary' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Mobile money number').fill('260971234567');
    await form.getByRole('button', { name: 'Save beneficiary' }).click();
    await alice.getByText(`${name} saved: AWAITING_APPROVAL.`).waitFor();

    // Bob approves the new payee, then alice changes its number, which bob approves again.
    const approve = async () => {
      await go(bob, 'Approvals');
      const card = bob.getByRole('listitem', { name: `Beneficiary ${name}` });
      await card.getByRole('button', { name: 'Approve', exact: true }).click();
      await card.waitFor({ state: 'detached' });
    };
    await approve();
    await go(alice, 'Beneficiaries');
    await alice
      .getByRole('row', { name: `Beneficiary ${name}` })
      .getByRole('button', { name: 'Change', exact: true })
      .click();
    const edit = alice.getByRole('form', { name: `Change ${name}` });
    expect(await edit.getByLabel('Mobile money number').inputValue()).toBe('260971234567');
    await edit.getByLabel('Mobile money number').fill('260977654321');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await alice.getByText(`${name} saved: its new details await approval by another person.`).waitFor();

    await go(bob, 'Approvals');
    const card = bob.getByRole('listitem', { name: `Beneficiary ${name}` });
    expect(await card.textContent()).toContain('260977654321');
    await approve();

    const book = await gql<{ beneficiaries: { edges: { node: { status: string; approvedBy: string } }[] } }>(
      stack.graphqlUrl,
      `query($s: String) { beneficiaries(filter: { search: $s }) { edges { node { status approvedBy } } } }`,
      { s: name },
      { authorization: `Bearer ${await sign('carol', 'beneficiaries:read')}` },
    );
    expect(book.data?.beneficiaries.edges.map((e) => e.node)).toEqual([{ status: 'ACTIVE', approvedBy: 'bob' }]);
  });

  it('a read-only token is offered no way to send, and the screen says why', async () => {
    const clerk = await openConsole(browser, stack.gateway.url, await sign('carol', 'payouts:read'));
    const nav = clerk.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Payouts', 'Scheduled', 'Finance']);
    await clerk.goto(`${stack.gateway.url}/console/new`);
    await clerk.getByText('Your token does not allow this screen: it needs payouts:write.').waitFor();
    expect(await clerk.getByRole('button', { name: 'Send payout' }).count()).toBe(0);
    await clerk.context().close();
  });

  it('a token that expires while the console is live is sent back to sign-in, saying so', async () => {
    // The gateway allows 30 s of clock skew: this token is accepted for about 6 s more.
    const token = await idp.sign({
      claims: { merchant_id: 'default', sub: 'carol', scope: 'payouts:read' },
      expiresIn: -24,
    });
    const page = await openConsole(browser, stack.gateway.url, token);
    await page.getByRole('banner').getByRole('status').getByText('Live', { exact: true }).waitFor();
    const alert = page.getByRole('alert');
    await alert.getByText('The live connection closed: Token expired').waitFor({ timeout: 20_000 });
    expect(await alert.getByText('UNAUTHENTICATED').count()).toBe(1);
    expect(await page.getByLabel('Token').count()).toBe(1);
    expect(await page.getByText('Live updates lost', { exact: false }).count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.context().close();
  });

  it("a refused token is sent back to sign-in with the gateway's message and code", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.gateway.url}/console`);
    await page.getByLabel('Token').fill(await idp.signWithUnknownKey({ claims: { merchant_id: 'default' } }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('UNAUTHENTICATED').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await context.close();
  });
});
