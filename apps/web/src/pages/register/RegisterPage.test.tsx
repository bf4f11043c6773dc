import { message } from '@accounts/validators';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ACME_SETTINGS, ADA, deferred, problem, type Reply } from '../../test/fake-api';
import { currentPath, findSummary, renderApp } from '../../test/render-app';

const PASSWORD = 'violet tractor sings at midnight';

async function openRegister(handlers = {}) {
  const app = renderApp('/register', handlers);
  await screen.findByRole('heading', { level: 1, name: 'Create your account' });
  await screen.findByLabelText('Name');
  return app;
}

const field = (label: string) => screen.getByLabelText<HTMLInputElement>(label);

/** Puts a whole value into a field at once, as a password manager does (one estimate, not one per key). */
async function enter(user: ReturnType<typeof renderApp>['user'], label: string, value: string) {
  await user.click(field(label));
  await user.paste(value);
}

/** The text of the error the input points to with aria-describedby. */
function describedError(input: HTMLElement) {
  const id = input
    .getAttribute('aria-describedby')
    ?.split(' ')
    .find((ref) => ref.endsWith('-error'));
  return id ? document.getElementById(id)?.textContent : undefined;
}

describe('registration page', () => {
  it('shows the realm and asks for name, email and password with the right autocomplete hints', async () => {
    await openRegister();
    expect(screen.getByRole('banner').textContent).toContain('Acme Inc');
    expect(field('Name').autocomplete).toBe('name');
    expect(field('Email address').autocomplete).toBe('email');
    expect(field('Password').autocomplete).toBe('new-password');
    expect(field('Confirm password').autocomplete).toBe('new-password');
  });

  it('says nothing as a field is left (the button below stays put); after a submit, the error follows what is typed', async () => {
    const { user, api } = await openRegister();
    const email = field('Email address');
    await user.type(email, 'ada@');
    await user.tab();
    expect(email.getAttribute('aria-invalid')).toBeNull();
    expect(describedError(email)).toBeUndefined();
    expect(document.getElementById('email-error')?.textContent).toBe('');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(describedError(email)).toBe(message('invalid_email', 'en'));
    await user.type(email, 'example.com');
    expect(email.getAttribute('aria-invalid')).toBeNull();
    expect(describedError(email)).toBeUndefined();
    expect(api.callsTo('account.register')).toHaveLength(0);
  });

  it('does not send an empty form; the focused summary links to every field', async () => {
    const { user, api } = await openRegister();
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    const summary = await findSummary();
    expect(document.activeElement).toBe(summary);
    const links = within(summary).getAllByRole('link');
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['#name', '#email', '#password', '#password2']);
    expect(links[0]!.textContent).toBe('Name: Enter your name.');
    for (const label of ['Name', 'Email address', 'Password', 'Confirm password']) {
      expect(field(label).getAttribute('aria-invalid')).toBe('true');
    }
    await user.click(links[1]!);
    expect(document.activeElement).toBe(field('Email address'));
    expect(api.callsTo('account.register')).toHaveLength(0);
  });

  it('applies the server policy: too similar to the name, mismatching confirmation', async () => {
    const { user } = await openRegister();
    await user.type(field('Name'), 'Ada Lovelace');
    // Hard to guess alone, easy once the name is known.
    await enter(user, 'Password', 'ada lovelace babbage');
    await enter(user, 'Confirm password', 'something else entirely');
    await user.tab();
    // Leaving the field says nothing yet; the submit does.
    expect(document.getElementById('password2-error')?.textContent).toBe('');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() =>
      expect(document.getElementById('password-error')?.textContent).toBe(message('password_too_similar', 'en')),
    );
    expect(document.getElementById('password2-error')?.textContent).toBe(message('password_mismatch', 'en'));
  });

  it("meters strength with the server's own rule, and calls good only what the server accepts", async () => {
    const { user } = await openRegister();
    const checks = () =>
      [...document.querySelectorAll('#password-checks li')].map((li) => [
        li.textContent?.replace(/\s+/g, ' ').trim(),
        li.classList.contains('met'),
      ]);
    const level = () => document.querySelector('.strength-level')?.textContent;
    expect(screen.getByText('Strength: not entered yet')).toBeTruthy();
    await user.type(field('Name'), 'Rosa Parks');
    await enter(user, 'Password', 'acme');
    await waitFor(() => expect(level()).toBe('Strength: too weak'));
    expect(checks()).toEqual([
      ['• At least 15 characters (not met)', false],
      ['• Not easy to guess: no common password, repeat, sequence or keyboard row (not met)', false],
      ['✓ Still hard to guess without your name, email address or this site (met)', true],
    ]);
    // Long enough, and refused by the server: never "good".
    for (const weak of ['qwertyuiopasdfgh', 'password123456789', 'aaaaaaaaaaaaaaa']) {
      await user.clear(field('Password'));
      await enter(user, 'Password', weak);
      expect(level()).toBe('Strength: too weak');
      expect(checks().map(([, met]) => met)).toEqual([true, false, true]);
    }
    await user.clear(field('Password'));
    await enter(user, 'Password', 'RosaParks19131955');
    expect(level()).toBe('Strength: too weak');
    expect(checks().map(([, met]) => met)).toEqual([true, true, false]);
    // A word of the name inside a strong passphrase is fine.
    await user.clear(field('Password'));
    await enter(user, 'Password', 'rosaline tractor sings at midnight');
    expect(checks().every(([, met]) => met)).toBe(true);
    expect(level()).toMatch(/^Strength: (good|strong|very strong)$/);
  });

  it('shows and hides the password without losing it', async () => {
    const { user } = await openRegister();
    await enter(user, 'Password', PASSWORD);
    const toggle = screen.getByRole('button', { name: 'Show password' });
    await user.click(toggle);
    expect(field('Password').type).toBe('text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(field('Password').type).toBe('password');
    expect(field('Password').value).toBe(PASSWORD);
    // Each toggle reads as a phrase with its field's name.
    expect(screen.getByRole('button', { name: 'Show confirm password' })).toBeTruthy();
  });

  async function fillValid(user: ReturnType<typeof renderApp>['user']) {
    await user.type(field('Name'), ADA.name);
    await user.type(field('Email address'), ADA.email);
    await enter(user, 'Password', PASSWORD);
    await enter(user, 'Confirm password', PASSWORD);
  }

  it('sends one registration however often the button is pressed, then shows the account', async () => {
    const pending = deferred<Reply<'account.register'>>();
    const { user, api } = await openRegister({ 'account.register': () => pending.promise });
    await fillValid(user);
    const submit = screen.getByRole('button', { name: 'Create account' });
    await user.dblClick(submit);
    await user.click(submit);
    expect(api.callsTo('account.register')).toHaveLength(1);
    expect(api.callsTo('account.register')[0]!.input).toEqual({
      name: ADA.name,
      email: ADA.email,
      password: PASSWORD,
      password2: PASSWORD,
    });
    expect(screen.getByRole('button', { name: 'Creating account…' }).hasAttribute('disabled')).toBe(true);

    pending.resolve({ data: { user: ADA } });
    await screen.findByRole('heading', { level: 1, name: 'Your account' });
    expect(currentPath()).toBe('/account');
    // The account page says where the confirmation link went (handed over in history state).
    expect(window.history.state).toEqual({ registered: true });
    expect(
      await screen.findByText(`We sent a confirmation link to ${ADA.email}. Open it to confirm your address.`),
    ).toBeTruthy();
    expect(screen.getByText(ADA.email)).toBeTruthy();
    expect(document.querySelector('.account-realm')?.textContent).toContain(ACME_SETTINGS.realm.name);
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('in a realm that signs in only confirmed addresses, says to confirm first and signs nobody in', async () => {
    const { user, api } = await openRegister({
      'account.register': () => ({ data: { user: ADA, emailVerificationRequired: true } }),
    });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    await screen.findByText(
      `Your account is created. We have sent a link to ${ADA.email}: open it to confirm your address, then sign in.`,
    );
    expect(currentPath()).toBe('/register');
    const main = within(screen.getByRole('main'));
    expect(main.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login?next=%2Faccount');
    // Nobody is taken for signed in: the header still offers to sign in, and no account is shown.
    expect(screen.queryByRole('button', { name: 'Sign out' })).toBeNull();
    expect(api.callsTo('account.register')).toHaveLength(1);
  });

  it('puts a server field error next to its field, worded by code in the page language', async () => {
    const { user } = await openRegister({
      'account.register': () =>
        problem(409, 'email_taken', {
          errors: [{ field: 'email', code: 'email_taken', message: 'Hier gibt es bereits ein Konto.' }],
        }),
    });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    const summary = await findSummary();
    await waitFor(() => expect(document.activeElement).toBe(summary));
    expect(summary.textContent).toContain(message('email_taken', 'en'));
    expect(field('Email address').getAttribute('aria-invalid')).toBe('true');
    expect(describedError(field('Email address'))).toBe(message('email_taken', 'en'));
    // The way out: sign in with that address instead.
    const instead = screen.getByRole('link', { name: 'Sign in instead' });
    expect(instead.getAttribute('href')).toBe(`/login?email=${encodeURIComponent(ADA.email)}`);
    // Or ask for a reset link for it.
    const forgot = screen.getByRole('link', { name: 'Forgot your password?' });
    expect(forgot.getAttribute('href')).toBe(`/forgot-password?email=${encodeURIComponent(ADA.email)}`);
    // Editing the field withdraws the server's verdict about the old value; the summary stays as it was.
    await user.type(field('Email address'), 'x');
    expect(field('Email address').getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Sign in instead' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Forgot your password?' })).toBeNull();
    expect(summary.textContent).toContain(message('email_taken', 'en'));
  });
});
