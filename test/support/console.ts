import { readFileSync } from 'node:fs';
import { Browser, Page } from 'playwright-core';
import { localContext } from './browser';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The console in a tab of its own at 1,400 px, signed in with `token` when given (else open access);
 * `init` runs in the page before the console's own script.
 */
export async function openConsole(
  browser: Browser,
  gatewayUrl: string,
  token?: string,
  init?: () => void,
): Promise<Page> {
  const context = await localContext(browser, { viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  await page.goto(`${gatewayUrl}/console`);
  if (token) {
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
  return page;
}

/** Follows a link of the nav, as a person does, and waits for its screen's heading. */
export async function go(page: Page, screen: string, heading = screen): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: screen, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is. Injected through the DevTools
 * protocol, which the page's CSP does not govern, so the page keeps its own policy.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** How far the page is wider than its viewport (0: no horizontal scroll). */
export async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
