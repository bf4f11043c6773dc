import { parseOtpauth } from '@accounts/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, STRONG, uniqueEmail, type Gateway, type Response } from './support/gateway.js';
import { authenticator } from './support/two-step.js';

// The account console's pages as a browser without scripts gets them over real HTTP: the code
// step of a sign-in (the tries left, the wait), where a sign-in with a recovery code lands, and
// the activity page's days and times in the zone the browser told (its `time_zone` cookie).

/** A browser without scripts: a cookie jar, pages asked for and forms posted as the browser does. */
function browser(gw: Gateway, language = 'en') {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || attrs.some((a) => /max-age=0/i.test(a.trim()))) jar.delete(name);
      else jar.set(name, value);
    }
    return { ...res, location: res.headers.location as string | undefined };
  };
  const headers = () => ({
    accept: 'text/html',
    'accept-language': language,
    cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
  });
  return {
    jar,
    get: async (path: string) => keep(await gw.send('GET', path, { headers: headers() })),
    post: async (path: string, fields: Record<string, string>) =>
      keep(
        await gw.send('POST', path, {
          headers: {
            ...headers(),
            'content-type': 'application/x-www-form-urlencoded',
            origin: `http://localhost:${gw.port}`,
            'sec-fetch-site': 'same-origin',
          },
          body: new URLSearchParams(fields).toString(),
        }),
      ),
  };
}

const pageData = (html: string) =>
  JSON.parse(/<script id="page-data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
const attemptsLeftOf = (html: string) => /<p class="attempts-left" id="attempts-left"[^>]*>(.*?)<\/p>/.exec(html)?.[1];

describe('the account console without scripts', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway('pglite', { SERVE_WEB: 'true', MAIL_POLL_MS: '0' });
  });
  afterAll(() => gw.close());

  /** A new account with the authenticator app on, signed in on its own browser. */
  async function withTwoStep() {
    const owner = browser(gw);
    const email = uniqueEmail('console');
    const reg = await owner.post('/register', {
      _form: 'register',
      name: 'Ada Lovelace',
      email,
      password: STRONG,
      password2: STRONG,
    });
    expect(reg.status).toBe(303);
    const setup = await owner.post('/settings/two-step', { _form: 'setupTotp' });
    const app = authenticator(parseOtpauth(pageData(setup.text).form.result.uri).secret);
    const enabled = await owner.post('/settings/two-step', {
      _form: 'enableTotp',
      code: await app.next(),
      current_password: STRONG,
    });
    const codes: string[] = pageData(enabled.text).form.result.recoveryCodes;
    return { owner, email, app, codes };
  }
  const code = (email: string, value: string) => ({
    _form: 'secondStep',
    code: value,
    email,
    methods: 'totp recovery_code',
  });

  it('lands a sign-in completed with a recovery code on /account?notice=recovery_code_used (303), or on the page it was for', async () => {
    const { email, app, codes } = await withTwoStep();
    const c = browser(gw);
    expect((await c.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(200);
    const done = await c.post('/login', code(email, codes[0]!));
    expect(done.status).toBe(303);
    expect(done.location).toBe('/account?notice=recovery_code_used');
    expect((await c.get(done.location!)).status).toBe(200);

    // The app's code: the page the sign-in was for, as before.
    const d = browser(gw);
    await d.post('/login', { _form: 'signIn', email, password: STRONG });
    const withApp = await d.post('/login', code(email, await app.next()));
    expect(withApp.location).toBe('/account');
    // A recovery code for another page (an app's sign-in, a settings page): that page.
    const e = browser(gw);
    await e.post('/login?next=%2Fsettings%2Fname', { _form: 'signIn', email, password: STRONG });
    const elsewhere = await e.post('/login?next=%2Fsettings%2Fname', code(email, codes[1]!));
    expect(elsewhere.status).toBe(303);
    expect(elsewhere.location).toBe('/settings/name');
  });

  it("says the tries left from the third wrong code in the page's language, and after the fifth how long to wait", async () => {
    const { email, app } = await withTwoStep();
    const c = browser(gw, 'de-DE,de;q=0.9');
    expect((await c.post('/login', { _form: 'signIn', email, password: STRONG })).status).toBe(200);
    const said = [];
    for (let i = 0; i < 4; i++) {
      const wrong = await c.post('/login', code(email, app.wrong()));
      expect(wrong.status).toBe(422);
      said.push(attemptsLeftOf(wrong.text));
    }
    expect(said).toEqual(['', '', 'Noch 2 Versuche.', 'Noch 1 Versuch.']);
    const fifth = await c.post('/login', code(email, app.wrong()));
    expect(fifth.status).toBe(429);
    expect(fifth.headers['retry-after']).toMatch(/^\d+$/);
    expect(fifth.text).toMatch(
      /<div class="notice sign-in-expired" tabindex="-1"><p>Zu viele falsche Codes\. Versuchen Sie es in etwa 1[45] Minuten erneut\.<\/p><\/div>/,
    );
    // Back at the password: the code step is over.
    expect(fifth.text).toMatch(/<input [^>]*id="password"/);
    expect(fifth.text).not.toMatch(/<input [^>]*id="code"/);
  });

  it('says the activity by day in the zone the browser told, in UTC (said so) when it did not, and never fails on a bad zone', async () => {
    const { owner } = await withTwoStep();
    const zone = 'Pacific/Kiritimati';
    const clock = (at: string, timeZone: string) =>
      new Intl.DateTimeFormat('en', { timeStyle: 'short', timeZone }).format(new Date(at));
    const dayHeadings = (html: string) =>
      [...html.matchAll(/<h2 class="day-heading"[^>]*>([^<]*)<\/h2>/g)].map((m) => m[1]);
    const newestTime = (html: string) => /<time dateTime="([^"]+)"[^>]*>([^<]*)<\/time>/.exec(html)!.slice(1);

    const untold = await owner.get('/settings/activity');
    expect(untold.status).toBe(200);
    expect(pageData(untold.text)).not.toHaveProperty('timeZone');
    const [at, shown] = newestTime(untold.text);
    expect(shown).toBe(`${clock(at!, 'UTC')} UTC`);
    expect(dayHeadings(untold.text)).toEqual(['Today']);

    owner.jar.set('time_zone', encodeURIComponent(zone));
    const told = await owner.get('/settings/activity');
    expect(pageData(told.text).timeZone).toBe(zone);
    const [at2, shown2] = newestTime(told.text);
    expect(shown2).toBe(clock(at2!, zone));
    expect(dayHeadings(told.text)).toEqual(['Today']);
    // The devices page too, grouped by the day each was last active.
    const devices = await owner.get('/settings/sessions');
    expect(pageData(devices.text).timeZone).toBe(zone);
    expect(dayHeadings(devices.text)).toEqual(['Today']);

    // A zone this runtime does not know, or no zone at all: the page in UTC, never an error.
    for (const bad of ['Nowhere%2FAtlantis', '..%2F..%2Fetc', 'x'.repeat(300), '%E0%A4%A', '%22%3Cscript%3E']) {
      owner.jar.set('time_zone', bad);
      const page = await owner.get('/settings/activity');
      expect(page.status, bad).toBe(200);
      expect(pageData(page.text), bad).not.toHaveProperty('timeZone');
      expect(newestTime(page.text)[1], bad).toMatch(/ UTC$/);
    }

    // A signed-out page is the same for everyone: never one browser's zone.
    const visitor = browser(gw);
    visitor.jar.set('time_zone', encodeURIComponent(zone));
    expect(pageData((await visitor.get('/login')).text)).not.toHaveProperty('timeZone');
  });
});
