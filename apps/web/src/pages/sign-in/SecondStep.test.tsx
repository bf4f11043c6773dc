// @vitest-environment node
import { message } from '@accounts/validators';
import { describe, expect, it } from 'vitest';
import { renderPage } from '../../entry-server';
import type { FormOutcome } from '../../page-data';
import { ADA } from '../../test/fake-api';
import { signedOut } from '../../test/page-answers';

// The second step of a sign-in posted without scripts, as the gateway renders the page with what
// the post came to: the tries left beside the code field, and the way back to the password after
// too many wrong codes, with the wait.
describe('sign-in page, second step without scripts', () => {
  const posted = (problem: FormOutcome['problem']) => ({
    ...signedOut,
    locale: 'de' as const,
    form: { form: 'secondStep', values: { email: ADA.email, methods: 'totp recovery_code' }, problem },
  });
  const refusal = (status: number, code: NonNullable<FormOutcome['problem']>['code'], extra = {}) => ({
    type: 'about:blank' as const,
    title: code,
    status,
    code,
    ...extra,
  });

  const wrongCode = (attemptsLeft?: number) =>
    refusal(422, 'validation_failed', {
      errors: [{ field: 'code', code: 'code_incorrect', message: 'x' }],
      ...(attemptsLeft !== undefined && { attemptsLeft }),
    });
  const attemptsLeftOf = (html: string) =>
    /<p class="attempts-left" id="attempts-left"[^>]*>(.*?)<\/p>/.exec(html)?.[1];

  it('says the tries left beside the code field, in plain words: "Noch 2 Versuche", then "Noch 1 Versuch"', async () => {
    // Three or more left: nothing said yet.
    expect(attemptsLeftOf((await renderPage('/login', posted(wrongCode()))).html)).toBe('');
    const two = await renderPage('/login', posted(wrongCode(2)));
    expect(attemptsLeftOf(two.html)).toBe('Noch 2 Versuche.');
    const one = await renderPage('/login', posted(wrongCode(1)));
    expect(attemptsLeftOf(one.html)).toBe('Noch 1 Versuch.');
    expect(one.html).toMatch(/<input[^>]*aria-describedby="[^"]*code-help attempts-left"/);
  });

  it('goes back to the password after too many wrong codes, saying how long to wait', async () => {
    const { html } = await renderPage('/login', posted(refusal(429, 'too_many_codes', { retryAfter: 600 })));
    expect(message('too_many_codes', 'de', { retryAfter: 600 })).toBe(
      'Zu viele falsche Codes. Versuchen Sie es in etwa 10 Minuten erneut.',
    );
    expect(html).toContain('Zu viele falsche Codes. Versuchen Sie es in etwa 10 Minuten erneut.');
    expect(html).toContain('type="password"');
    expect(html).not.toContain('one-time-code');
  });
});
