import { inject, it } from 'vitest';
import { launchBrowser } from './support/browser';
const port = inject('port');
const BASE = `http://localhost:${port}`;
it('debug', async () => {
  const browser = await launchBrowser();
  const ctx = await browser.newContext();
  for (const path of ['/login', '/verify-email?token=0000000000000000000000000000000000000000000', '/forgot-password']) {
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    cdp.on('Audits.issueAdded', (e) => console.log(path, 'ISSUE', JSON.stringify(e.issue).slice(0, 800)));
    page.on('console', (m) => console.log(path, 'CONSOLE', m.type(), m.text(), JSON.stringify(m.location())));
    page.on('request', (r) => console.log(path, 'REQ', r.method(), r.url()));
    await cdp.send('Audits.enable');
    await page.goto(`${BASE}${path}`, { waitUntil: 'networkidle' });
    await page.waitForTimeout(1000);
    const h = await page.evaluate(() => document.documentElement.outerHTML.slice(0, 3000));
    console.log(h);
    await page.close();
  }
  await browser.close();
}, 60000);
