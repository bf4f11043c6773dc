import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { PHONE, screenshot } from './browser';
import { appRunning } from './flows';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const THEMES = ['light', 'dark'] as const;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's WCAG 2.x A/AA violations on the page as it is now (evaluated past the page's CSP). */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Found = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Found[] }> } }
    ).axe;
    const { violations } = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}

/**
 * Checks the page as it is now in the light and the dark theme with axe-core (no violation
 * allowed) and keeps a screenshot of each: test-results/screenshots/<name>-<theme>-<desktop|phone>.png.
 */
export async function audit(page: Page, name: string) {
  const size = (page.viewportSize()?.width ?? 0) <= PHONE.width ? 'phone' : 'desktop';
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    // The theme's colours are applied on the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await axeViolations(page), `${name}, ${theme}, ${size}`).toEqual([]);
    await screenshot(page, `${name}-${theme}-${size}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** audit() at the desktop and the phone width, back at the width it had. */
export async function auditBothSizes(page: Page, name: string, desktop: { width: number; height: number }) {
  // The page as the app runs it (the server's HTML before that lacks what only scripts can work: toggles, passkeys).
  await appRunning(page);
  const before = page.viewportSize() ?? desktop;
  await page.setViewportSize(desktop);
  await audit(page, name);
  await page.setViewportSize(PHONE);
  await audit(page, name);
  await page.setViewportSize(before);
}
