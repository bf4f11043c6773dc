import { describe, expect, inject, it } from 'vitest';
import { auditBothSizes } from './support/audit';
import { DESKTOP, heading, PHONE, screenshot, useBrowser } from './support/browser';
import { appRunning, field, person, register, submitSignIn } from './support/flows';

const port = inject('port');
const BASE = `http://localhost:${port}`;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe.skipIf(port === null)('the security pages in Chromium', () => {
  const { context } = useBrowser();

  it('two browsers see each other on the devices page; one ends the other, which finds itself signed out', async () => {
    const ada = person('devices');
    const laptop = await (await context()).newPage();
    await register(laptop, BASE, ada);
    const phone = await (await context({ viewport: PHONE, userAgent: IPHONE })).newPage();
    await phone.goto(`${BASE}/login`);
    await submitSignIn(phone, ada.email, ada.password);
    await phone.waitForURL(`${BASE}/account`);

    await laptop.getByRole('link', { name: "Where you're signed in" }).click();
    await laptop.waitForURL(`${BASE}/settings/sessions`);
    await laptop.locator('.session').nth(1).waitFor();
    expect(await heading(laptop).textContent()).toBe("Where you're signed in");
    expect(await laptop.locator('.session').count()).toBe(2);
    const mine = laptop.locator('.session[data-current]');
    expect(await mine.locator('.badge').textContent()).toBe('This device');
    const other = laptop.locator('.session:not([data-current])');
    expect(await other.locator('h3').textContent()).toBe('Mobile Safari 17 on iOS 17.5');
    // Under the day each was last active: both today.
    expect(await laptop.locator('.day-heading').allTextContents()).toEqual(['Today']);
    expect(await other.locator('.session-address').textContent()).toMatch(/^127\.0\.0\.x$/);
    expect(await other.locator('.session-times').textContent()).toMatch(
      /Last active (now|\d+ seconds? ago).*Signed in/,
    );

    await phone.goto(`${BASE}/settings/sessions`);
    await phone.locator('.session').nth(1).waitFor();
    expect(await phone.locator('.session[data-current] h3').textContent()).toContain('Mobile Safari 17 on iOS 17.5');
    await screenshot(phone, 'sessions-phone');

    // Ending another device asks for the password first.
    await laptop.getByRole('link', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }).click();
    await laptop.getByText('Enter your current password to sign out Mobile Safari 17 on iOS 17.5.').waitFor();
    await field(laptop, 'Current password').fill('not the password at all');
    await laptop.getByRole('button', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }).click();
    await laptop.locator('.error-summary').getByText('The password is incorrect.').waitFor();
    expect(await laptop.locator('.session').count()).toBe(2);
    await field(laptop, 'Current password').fill(ada.password);
    await laptop.getByRole('button', { name: 'Sign out Mobile Safari 17 on iOS 17.5' }).click();
    await laptop.getByText('That device was signed out.').waitFor();
    await laptop.getByText('You are signed in on this device only.').waitFor();
    expect(await laptop.locator('.session').count()).toBe(1);

    // The phone still shows the old list; its next request finds its session gone.
    await phone.getByRole('link', { name: 'Sign out everywhere else' }).click();
    await field(phone, 'Current password').fill(ada.password);
    await phone.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await phone.waitForURL(/\/login\?next=%2Fsettings%2Fsessions&expired=1$/);
    await phone.getByText('You were signed out. Sign in again to continue.').waitFor();
    await phone.goto(`${BASE}/settings/sessions`);
    await phone.waitForURL(/\/login\?next=%2Fsettings%2Fsessions$/);

    // The laptop's activity page tells what happened, newest first, by day, in words and the time
    // of day. From the hub (the header's Account), as a person would go.
    await laptop.getByRole('link', { name: 'Account', exact: true }).click();
    await laptop.getByRole('link', { name: 'Recent activity' }).click();
    await laptop.waitForURL(`${BASE}/settings/activity`);
    await laptop.locator('.event').nth(2).waitFor();
    expect(await laptop.locator('.day-heading').allTextContents()).toEqual(['Today']);
    const events = await laptop.locator('.event .event-what strong').allTextContents();
    expect(events.slice(0, 4)).toEqual([
      'A device was signed out',
      'Wrong current password entered',
      'Signed in',
      'Account created',
    ]);
    // The time of day in the browser's own zone.
    const first = laptop.locator('.event time').first();
    const iso = (await first.getAttribute('datetime'))!;
    expect(await first.textContent()).toBe(
      await laptop.evaluate((at) => new Intl.DateTimeFormat('en', { timeStyle: 'short' }).format(new Date(at)), iso),
    );
    // The phone's sign-in came from a device the account did not know: said so, with what to do.
    const phoneSignIn = laptop.locator('.event', { hasText: 'Mobile Safari 17 on iOS 17.5' });
    expect(await phoneSignIn.locator('.badge-new').textContent()).toBe('New device');
    expect(await phoneSignIn.locator('.event-advice').textContent()).toBe(
      'Wasn’t you? Change your password and sign out everywhere.',
    );
    await phoneSignIn.getByRole('link', { name: 'sign out everywhere' }).click();
    await laptop.waitForURL(`${BASE}/settings/sessions`);
    await laptop.goBack();
    await laptop.locator('.event').nth(2).waitFor();
    await laptop
      .locator('.event', { hasText: 'Mobile Safari 17 on iOS 17.5' })
      .getByRole('link', { name: 'Change your password' })
      .click();
    await laptop.waitForURL(`${BASE}/settings`);
  });

  it("marks failed sign-ins in the activity, in the person's language, days and times in their zone", async () => {
    const bea = person('activity-de', 'Bea Schmidt');
    // Kiritimati, UTC+14: its day is not the server's (UTC) for most of the day.
    const ownContext = await context({ locale: 'de-DE', timezoneId: 'Pacific/Kiritimati' });
    const own = await ownContext.newPage();
    await own.goto(`${BASE}/register`);
    await field(own, 'Name').fill(bea.name);
    await field(own, 'E-Mail-Adresse').fill(bea.email);
    await field(own, 'Passwort').fill(bea.password);
    await field(own, 'Passwort bestätigen').fill(bea.password);
    await own.getByRole('button', { name: 'Konto erstellen' }).click();
    await own.waitForURL(`${BASE}/account`);
    const stranger = await (await context({ userAgent: IPHONE })).newPage();
    await stranger.goto(`${BASE}/login`);
    await submitSignIn(stranger, bea.email, 'not the password at all');
    await stranger.locator('.error-summary').waitFor();
    // The owner signs in on a French browser too.
    const french = await (await context({ locale: 'fr-FR' })).newPage();
    await french.goto(`${BASE}/login`);
    await field(french, 'Adresse e-mail').fill(bea.email);
    await field(french, 'Mot de passe').fill(bea.password);
    await french.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await french.waitForURL(`${BASE}/account`);

    // Rendered by the server before the browser told its zone: in UTC, said so.
    const asHtml = { headers: { accept: 'text/html', 'accept-language': 'de-DE' } };
    expect(await (await own.request.get(`${BASE}/settings/activity`, asHtml)).text()).toMatch(/>\d\d:\d\d UTC<\/time>/);
    await own.goto(`${BASE}/settings/activity`);
    await own.locator('.event.failed').waitFor();
    // The app says the times in the browser's own zone once it runs.
    await appRunning(own);
    expect(await heading(own).textContent()).toBe('Letzte Aktivität');
    expect(await own.locator('.day-heading').allTextContents()).toEqual(['Heute']);
    const failed = own.locator('.event.failed');
    expect(await failed.locator('strong').textContent()).toBe('Anmeldung mit falschem Passwort');
    expect(await failed.locator('.badge-failed').textContent()).toBe('Fehlgeschlagen');
    // The device in German words; the time of day in Kiritimati.
    expect(await failed.locator('.event-where').textContent()).toMatch(
      / · Mobile Safari 17 unter iOS 17\.5, 127\.0\.0\.x$/,
    );
    const time = failed.locator('.event-where time');
    const kiritimati = (at: string) =>
      new Intl.DateTimeFormat('de', { timeStyle: 'short', timeZone: 'Pacific/Kiritimati' }).format(new Date(at));
    const at = (await time.getAttribute('datetime'))!;
    await expect.poll(() => time.textContent()).toBe(kiritimati(at));
    expect(await failed.locator('.event-advice').textContent()).toBe(
      'Waren Sie das nicht? Ändern Sie Ihr Passwort und melden Sie sich überall ab.',
    );
    expect(await own.locator('.event:not(.failed)').count()).toBeGreaterThanOrEqual(1);
    await auditBothSizes(own, 'activity-by-day', DESKTOP);

    // The page told the server the browser's zone: the pages it renders (without scripts too) say it.
    expect((await ownContext.cookies(BASE)).find((c) => c.name === 'time_zone')?.value).toBe('Pacific%2FKiritimati');
    const rendered = await (await own.request.get(`${BASE}/settings/activity`, asHtml)).text();
    expect(rendered).toContain(`>${kiritimati(at)}</time>`);
    expect(rendered).toContain('<h2 class="day-heading" id="day-');
    expect(rendered).not.toContain(' UTC</time>');

    // The devices, in each page's words: German here, French on the French browser.
    await own.goto(`${BASE}/settings/sessions`);
    await own.locator('.session').nth(1).waitFor();
    expect(await own.locator('.session h3').allTextContents()).toEqual([
      expect.stringMatching(/ unter Linux.*Dieses Gerät$/),
      expect.stringMatching(/ unter Linux$/),
    ]);
    await auditBothSizes(own, 'sessions-by-day', DESKTOP);
    await french.goto(`${BASE}/settings/sessions`);
    await french.locator('.session').nth(1).waitFor();
    expect(await french.locator('.session[data-current] h3').textContent()).toMatch(/ sous Linux.*Cet appareil$/);
    expect(await french.locator('.day-heading').allTextContents()).toEqual(['Aujourd’hui']);
  });

  it('changes the name, then deletes the account after the password and frees the email', async () => {
    const cy = person('delete', 'Cy Young');
    const page = await (await context()).newPage();
    await register(page, BASE, cy);
    await page.getByRole('link', { name: 'Change your name' }).click();
    await page.waitForURL(`${BASE}/settings/name`);
    await field(page, 'Name').fill('Cyrus Young');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Your name has been changed to Cyrus Young.').waitFor();

    await page.goto(`${BASE}/account`);
    expect(await page.locator('.account-name').textContent()).toBe('Cyrus Young');
    await page.getByRole('link', { name: 'Delete your account' }).click();
    await page.waitForURL(`${BASE}/settings/delete`);
    expect(await page.locator('.delete-what').textContent()).toContain('every device signed in to it');
    await field(page, 'Current password').fill('not the password at all');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.locator('.error-summary').waitFor();
    expect(await page.locator('.error-summary').textContent()).toContain('The password is incorrect.');
    await field(page, 'Current password').fill(cy.password);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText('Your account has been deleted, and you have been signed out.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();

    await page.getByRole('link', { name: 'Create a new account' }).click();
    await register(page, BASE, cy);
    expect(await page.locator('.account-name').textContent()).toBe(cy.name);
  });
});
