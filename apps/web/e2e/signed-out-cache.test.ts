import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from './support/browser';
import { appRunning, person, register, submitSignIn } from './support/flows';

// What the app holds about a person stays with them: after signing out, the next person in the
// same tab never sees the previous one's devices, not even for a moment while theirs load.

const port = inject('port');
const BASE = `http://localhost:${port}`;

describe.skipIf(port === null)("the previous person's data after signing out, in Chromium", () => {
  const { context } = useBrowser();

  it("signing out and in as someone else shows only the new person's devices", async () => {
    const ada = person('cache-ada');
    const bob = person('cache-bob', 'Bob Babbage');
    await register(await (await context()).newPage(), BASE, bob);
    const tab = await (await context()).newPage();
    await register(tab, BASE, ada);
    // Two more devices of Ada's: her devices page lists three (Bob will have two: his first
    // browser and this tab).
    for (let i = 0; i < 2; i++) {
      const other = await (await context()).newPage();
      await other.goto(`${BASE}/login`);
      await submitSignIn(other, ada.email, ada.password);
      await other.waitForURL(`${BASE}/account`);
    }

    await appRunning(tab);
    await tab.getByRole('link', { name: "Where you're signed in" }).click();
    await tab.locator('.session').nth(2).waitFor();
    expect(await tab.locator('.session').count()).toBe(3);

    // Signing out and in again happens in the app, in the same tab (no page load in between).
    await tab.getByRole('button', { name: 'Sign out' }).click();
    await tab.waitForURL(`${BASE}/login`);
    await submitSignIn(tab, bob.email, bob.password);
    await tab.waitForURL(`${BASE}/account`);
    // The devices page the moment it appears: Ada's three devices would show at once from a kept
    // answer; Bob's two come from the server.
    const seen = await tab.evaluate(async () => {
      const counts: number[] = [];
      const observer = new MutationObserver(() => counts.push(document.querySelectorAll('.session').length));
      observer.observe(document.body, { childList: true, subtree: true });
      document.querySelector<HTMLAnchorElement>('a[href="/settings/sessions"]')!.click();
      await new Promise<void>((resolve) => {
        const done = () => (document.querySelectorAll('.session').length > 0 ? resolve() : setTimeout(done, 20));
        done();
      });
      observer.disconnect();
      return counts.filter((n) => n > 0);
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBe(2);
    expect(await tab.locator('.session').count()).toBe(2);
  });
});
