import { fireEvent, render, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useForm } from '../forms/useForm';
import { useNewPassword } from '../forms/useNewPassword';
import { Providers } from '../Providers';
import { ACME_SETTINGS, fakeApi } from '../test/fake-api';
import { NewPasswordFields } from './NewPasswordFields';

// The new password as the register, reset and settings pages ask for it: one input described by
// its strength meter, judged by the realm's rule against the person, then its confirmation.

const acceptAll = { safeParse: () => ({ success: true as const }) };

function NewPasswordForm({ person }: { person?: { name: string; email: string } }) {
  const rule = useNewPassword(person);
  const form = useForm({
    name: null,
    initial: { new_password: '', confirm_password: '' },
    schema: acceptAll,
    submit: async () => {},
  });
  return (
    <form>
      <NewPasswordFields
        form={form}
        names={['new_password', 'confirm_password']}
        labels={{ new_password: 'New password', confirm_password: 'Again' }}
        rule={rule}
      />
    </form>
  );
}

function renderForm(person?: { name: string; email: string }) {
  return render(
    <Providers locale="en" data={{ locale: 'en', settings: ACME_SETTINGS, user: null }} fetchImpl={fakeApi().fetch}>
      <NewPasswordForm person={person} />
    </Providers>,
  );
}

const input = (id: string) => document.getElementById(id) as HTMLInputElement;
const similarMet = () => document.querySelectorAll('#new-password-checks li')[2]!.classList.contains('met');

describe('NewPasswordFields', () => {
  it('describes the new password by its strength checks and asks for it again, both as a new password', () => {
    renderForm();
    expect(input('new_password').getAttribute('autocomplete')).toBe('new-password');
    expect(input('new_password').getAttribute('aria-describedby')).toContain(
      'new-password-checks-level new-password-checks',
    );
    expect(document.getElementById('new-password-checks')?.tagName).toBe('UL');
    expect(input('confirm_password').getAttribute('autocomplete')).toBe('new-password');
    expect(input('confirm_password').getAttribute('aria-describedby') ?? '').not.toContain('checks');
  });

  it("judges the password against the person's name and email, by the realm's policy", async () => {
    // Hard to guess alone, easy once the name is known.
    for (const [person, similar] of [
      [{ name: 'Ada Lovelace', email: 'ada@example.com' }, true],
      [undefined, false],
    ] as const) {
      const view = renderForm(person);
      expect(document.querySelector('#new-password-checks li')?.textContent).toContain(
        `At least ${ACME_SETTINGS.passwordPolicy.minLength} characters`,
      );
      fireEvent.change(input('new_password'), { target: { value: 'ada lovelace babbage' } });
      await waitFor(() => expect(document.querySelector('.strength')?.getAttribute('aria-busy')).toBe('false'));
      expect(similarMet(), person ? 'with the name' : 'without').toBe(!similar);
      view.unmount();
    }
  });
});
