import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM_PATH, SCREENSHOT_DIR } from './paths';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/** A fresh browser profile (its own cookies), English unless told otherwise. */
export function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-US', viewport: DESKTOP, ...options });
}

/**
 * One Chromium for the tests of the `describe` that calls this: launched in a beforeAll, and
 * closed in an afterAll with every context they opened (the hooks run where the call stands).
 */
export function useBrowser() {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const ctx of contexts) await ctx.close();
    await browser?.close();
  });
  const context = async (options?: BrowserContextOptions): Promise<BrowserContext> => {
    if (!browser) throw new Error('the browser starts in beforeAll: open contexts in hooks or tests');
    const ctx = await newContext(browser, options);
    contexts.push(ctx);
    return ctx;
  };
  /** A page in a fresh context of its own. */
  const page = async (options?: BrowserContextOptions): Promise<Page> => (await context(options)).newPage();
  return { context, page };
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** The text of the error an input points to with aria-describedby ('' when none). */
export async function errorNextTo(page: Page, inputId: string): Promise<string> {
  return page.evaluate((id) => {
    const input = document.getElementById(id);
    const ref = input
      ?.getAttribute('aria-describedby')
      ?.split(' ')
      .find((r) => r.endsWith('-error'));
    return (ref && document.getElementById(ref)?.textContent) || '';
  }, inputId);
}

/** The page's heading: the one shown (the page before stays in the document, hidden, while the next one's code loads). */
export const heading = (page: Page) => page.locator('h1').filter({ visible: true });
