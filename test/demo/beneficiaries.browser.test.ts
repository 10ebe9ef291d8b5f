import { randomUUID } from 'node:crypto';
import { Browser, Page } from 'playwright-core';
import { describeBrowser, launchChromium, localContext } from '../support/browser';
import { TestIdp } from '../support/idp';
import { Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

/**
 * The dashboard's beneficiary book: alice adds one (awaiting approval under beneficiaryApproval),
 * cannot approve it herself, bob approves it, alice searches, edits, pays and archives it, and pays
 * a batch from a CSV of beneficiaryId,amount,referenceId.
 */
describeBrowser('the demo dashboard with the beneficiary book', () => {
  let idp: TestIdp;
  let stack: Stack;
  let browser: Browser;
  let alice: Page;
  let bob: Page;
  const ALL = 'payouts:read payouts:write payouts:approve beneficiaries:read beneficiaries:write';

  const open = async (token: string): Promise<Page> => {
    const page = await (await localContext(browser)).newPage();
    await page.goto(`${stack.gateway.url}/demo`);
    await page.waitForFunction(() =>
      (document.getElementById('referenceId') as HTMLInputElement).value.startsWith('demo-'),
    );
    await page.fill('#token', token);
    await page.dispatchEvent('#token', 'change');
    return page;
  };
  const rowOf = (page: Page, name: string) => page.locator('#ben-rows tr', { hasText: name });
  const add = async (name: string, accountNumber: string) => {
    await alice.fill('#ben-name', name);
    await alice.fill('#ben-account', accountNumber);
    await alice.click('#ben-save');
    await alice.getByTestId('ben-note').getByText(`${name} saved`, { exact: false }).waitFor();
  };

  beforeAll(async () => {
    idp = await TestIdp.start();
    stack = await startStack({
      env: {
        JWT_JWKS_URL: idp.jwksUrl,
        JWT_ISSUER: idp.issuer,
        JWT_AUDIENCE: idp.audience,
        PAYOUT_CONTROLS: JSON.stringify({ beneficiaryApproval: true }),
      },
    });
    browser = await launchChromium();
    const sign = (sub: string) => idp.sign({ claims: { merchant_id: 'default', sub, scope: ALL } });
    alice = await open(await sign('alice'));
    bob = await open(await sign('bob'));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await idp?.close();
  });

  it('add, approve by a second person, search (masked), rename (approved again), pay, archive', async () => {
    const name = `Supplier ${randomUUID().slice(0, 8)}`;
    await add(name, '260971234567');
    expect(await rowOf(alice, name).locator('[data-col="status"]').textContent()).toBe('AWAITING_APPROVAL');
    expect(await rowOf(alice, name).locator('[data-col="account"]').textContent()).toBe('****4567');

    await rowOf(alice, name).locator('button[data-action="approve"]').click();
    await alice.getByTestId('ben-note').getByText('FORBIDDEN', { exact: false }).waitFor();
    await bob.click('#ben-refresh');
    await rowOf(bob, name).locator('button[data-action="approve"]').click();
    await bob.getByTestId('ben-note').getByText(`${name} approved: ACTIVE`, { exact: false }).waitFor();

    await alice.fill('#ben-search', name.slice(-8));
    await alice.click('#ben-search-go');
    await alice.getByTestId('ben-count').getByText('1 beneficiaries').waitFor();
    await rowOf(alice, name).locator('button[data-action="edit"]').click();
    await alice.waitForFunction(
      () => (document.getElementById('ben-account') as HTMLInputElement).value === '260971234567',
    );
    await alice.fill('#ben-name', `${name} renamed`);
    await alice.click('#ben-save');
    // A new name is a change of payee like new account details: it waits for a second person too.
    await alice
      .getByTestId('ben-note')
      .getByText(`${name} renamed saved: AWAITING_APPROVAL`, { exact: false })
      .waitFor();
    await bob.click('#ben-refresh');
    await rowOf(bob, name).locator('button[data-action="approve"]').click();
    await bob.getByTestId('ben-note').getByText(`${name} renamed approved: ACTIVE`, { exact: false }).waitFor();
    await alice.click('#ben-refresh');

    await rowOf(alice, name).locator('button[data-action="pay"]').click();
    await alice.getByTestId('ben-note').getByText('Paid: ', { exact: false }).waitFor();
    expect(await alice.getByTestId('ben-note').textContent()).toMatch(/PENDING|SUCCESSFUL/);

    await rowOf(alice, name).locator('button[data-action="archive"]').click();
    await alice.getByTestId('ben-note').getByText('archived: ARCHIVED', { exact: false }).waitFor();
    // The list is drawn again after the note: an archived beneficiary loses its Pay button there.
    await rowOf(alice, name).locator('button[data-action="pay"]').waitFor({ state: 'detached' });
    expect(await rowOf(alice, name).locator('button[data-action="pay"]').count()).toBe(0);
  });

  it('a CSV of beneficiaryId,amount,referenceId pays a batch, an unknown id refused on its own line', async () => {
    const name = `Batch ${randomUUID().slice(0, 8)}`;
    await add(name, '260971234321');
    await bob.click('#ben-refresh');
    await rowOf(bob, name).locator('button[data-action="approve"]').click();
    await bob.getByTestId('ben-note').getByText(`${name} approved`, { exact: false }).waitFor();
    await alice.fill('#ben-search', name);
    await alice.click('#ben-search-go');
    const id = (await rowOf(alice, name).locator('[data-col="id"]').textContent()) ?? '';
    const run = randomUUID().slice(0, 8);
    const lines = ['beneficiaryId,amount,referenceId', `${id},5,bcsv-${run}-0`, `ben_nobody,5,bcsv-${run}-1`];
    await alice.setInputFiles('#ben-batch-file', {
      name: 'beneficiaries.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\r\n')),
    });
    await alice.click('#ben-batch-send');
    await alice.getByText('1 of 2 beneficiary payouts recorded', { exact: false }).waitFor();
    const results = await alice.locator('#ben-batch-rows tr').evaluateAll((rows) => rows.map((r) => r.textContent));
    expect(results[0]).toMatch(/PENDING|SUCCESSFUL/);
    expect(results[1]).toContain('BAD_USER_INPUT');
    expect(stack.sandbox.stats().createRequestsByReferenceId[`bcsv-${run}-0`]).toBe(1);
  });
});
