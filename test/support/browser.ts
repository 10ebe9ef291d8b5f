import { existsSync } from 'node:fs';
import { Browser, BrowserContext, BrowserContextOptions, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];
const hasChromium = existsSync(CHROMIUM);

type Describe = (name: string, fn: () => void) => void;

/**
 * `base` where Chromium is installed; elsewhere the suite is skipped with a warning. In CI a missing
 * Chromium must fail, not skip: `launchChromium` throws.
 */
export function withChromium(base: Describe): Describe {
  if (hasChromium || process.env.CI) return base;
  return (name, fn) => {
    console.warn(`Skipping "${name}": no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
    describe.skip(name, fn);
  };
}

export const describeBrowser = withChromium(describe);

export async function launchChromium(): Promise<Browser> {
  if (!hasChromium)
    throw new Error(`Chromium is required in CI: install it at ${CHROMIUM} (apt-get install -y chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A context whose pages reach only this machine: any outside address (a CDN, say) is cut off. */
export async function localContext(browser: Browser, options?: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  return context;
}
