import { act } from '@testing-library/react';
import { hydrateRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderDocument } from '../../entry-server';
import type { PageData } from '../../page-data';
import { Root } from '../../Root';
import { ADA, ACME_SETTINGS, fakeApi, signedInAs } from '../../test/fake-api';
import type { ActivityEvent } from './compact';

// The activity page as the gateway sends it (rendered on the server, working without scripts),
// and as the browser then takes it over: days in the zone the browser told the server, else in
// UTC (said so), then in the browser's own.

const NOW = Date.parse('2026-03-10T15:00:00Z');
const event = (id: string, at: string, type: string, more: Partial<ActivityEvent> = {}): ActivityEvent => ({
  id,
  at,
  type,
  device: 'Firefox 128 unter Windows 10',
  address: '203.0.113.x',
  failed: false,
  app: null,
  ...more,
});
const EVENTS = {
  events: [
    event('1', '2026-03-10T14:58:00Z', 'sign_in_failed', { device: 'curl 8.5', failed: true }),
    event('2', '2026-03-10T12:00:00Z', 'signed_in'),
    // 00:30 on 10 March in Berlin, 23:30 on 9 March in UTC.
    event('3', '2026-03-09T23:30:00Z', 'signed_in'),
  ],
  nextCursor: 'older',
};
const data = (timeZone?: string): PageData => ({
  locale: 'de',
  settings: ACME_SETTINGS,
  user: { ...ADA, emailVerified: true },
  ...(timeZone && { timeZone }),
});
const indexHtml = '<title></title><div id="root"></div>';

/** The page's HTML and data as the gateway sends them. */
async function served(page: PageData) {
  const document = await renderDocument(indexHtml, '/settings/activity', page, () => Promise.resolve(EVENTS));
  if (!('html' in document)) throw new Error('a redirect');
  const [, html, json] =
    /<div id="root">(.*)<\/div><script id="page-data" type="application\/json">(.*)<\/script>/s.exec(document.html)!;
  return { html: html!, data: JSON.parse(json!) as PageData };
}

const headings = (html: string) => [...html.matchAll(/<h2 class="day-heading"[^>]*>([^<]*)<\/h2>/g)].map((m) => m[1]);

/** Intl's own resolvedOptions, for the spy that stands in for it to call. */
const intlOptions = Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'resolvedOptions')!.value as (
  this: Intl.DateTimeFormat,
) => Intl.ResolvedDateTimeFormatOptions;

/** The browser's own zone, for the formats made without one. */
function browserIn(zone: string) {
  const own = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockImplementation(function (this: Intl.DateTimeFormat) {
    const options = intlOptions.call(this);
    return options.timeZone === own ? { ...options, timeZone: zone } : options;
  });
}

afterEach(() => {
  vi.restoreAllMocks();
  document.cookie = 'time_zone=; Max-Age=0; Path=/';
});

describe('the activity page without scripts', () => {
  it("says the days and times in the zone the browser told, a repeat's times in a <details>", async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const { html } = await served(data('Europe/Berlin'));
    expect(headings(html)).toEqual(['Heute']);
    expect(html).toMatch(/<details class="event-repeats"><summary class="event-what"><strong>Angemeldet<\/strong>/);
    expect(html).toContain('<span class="event-count">2-mal</span>');
    expect([...html.matchAll(/<ol class="event-times">(.*?)<\/ol>/g)][0]![1]).toMatch(/>13:00<.*>00:30</);
    expect(html).toContain('>15:58</time>');
    // Beside the failure: what to do, as links that need no script.
    expect(html).toContain('Waren Sie das nicht? <a href="/settings">Ändern Sie Ihr Passwort</a>');
    expect(html).toContain('<a href="/settings/sessions">melden Sie sich überall ab</a>');
    expect(html).toContain('href="/settings/activity?cursor=older"');
  });

  it('says its times in UTC when the browser has not told its zone', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const { html } = await served(data());
    expect(headings(html)).toEqual(['Heute', 'Gestern']);
    expect(html).toContain('>14:58 UTC</time>');
    expect(html).toContain('>23:30 UTC</time>');
  });
});

describe('the activity page taken over by the browser', () => {
  it('takes the server’s days over as they are, then says them in the browser’s zone and tells the server', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const { html, data: sent } = await served(data());
    browserIn('Europe/Berlin');
    window.history.replaceState(null, '', '/settings/activity');
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const mismatches: unknown[] = [];
    const api = fakeApi({ 'account.me': () => signedInAs(sent.user!), 'security.activity': () => ({ data: EVENTS }) });
    const root = await act(() =>
      Promise.resolve(
        hydrateRoot(container, <Root locale="de" data={sent} fetchImpl={api.fetch} />, {
          onRecoverableError: (error) => mismatches.push(error),
        }),
      ),
    );
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(mismatches).toEqual([]);
    // Now in Berlin's day: one day, its three sign-ins' times in Berlin's clock, without "UTC".
    expect(headings(container.innerHTML)).toEqual(['Heute']);
    expect(container.querySelector('.event-count')!.textContent).toBe('2-mal');
    expect(container.textContent).not.toContain('UTC');
    expect(document.cookie).toContain('time_zone=Europe%2FBerlin');
    await act(() => Promise.resolve(root.unmount()));
    container.remove();
  });

  it('takes over a page rendered in the zone the browser told without a change', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    document.cookie = 'time_zone=Europe%2FBerlin; Path=/';
    const { html, data: sent } = await served(data('Europe/Berlin'));
    browserIn('Europe/Berlin');
    window.history.replaceState(null, '', '/settings/activity');
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const mismatches: unknown[] = [];
    const api = fakeApi({ 'account.me': () => signedInAs(sent.user!), 'security.activity': () => ({ data: EVENTS }) });
    const root = await act(() =>
      Promise.resolve(
        hydrateRoot(container, <Root locale="de" data={sent} fetchImpl={api.fetch} />, {
          onRecoverableError: (error) => mismatches.push(error),
        }),
      ),
    );
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(mismatches).toEqual([]);
    // Nothing redrawn: the page is the server's, as the browser read it.
    const asSent = document.createElement('div');
    asSent.innerHTML = html;
    expect(container.innerHTML).toBe(asSent.innerHTML);
    expect(document.cookie).toBe('time_zone=Europe%2FBerlin');
    await act(() => Promise.resolve(root.unmount()));
    container.remove();
  });
});
