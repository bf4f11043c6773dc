import type { Form } from '../forms/useForm';
import { problemOf } from '../trpc';
import { PasswordField } from './PasswordField';

/**
 * The server asks for the current password again (this session has not proved it for 5 minutes,
 * or signed in with a passkey): not a refusal, the password field is to appear.
 */
export const isPasswordRecheck = (error: unknown) =>
  problemOf(error)?.errors?.some((e) => e.field === 'current_password' && e.code === 'password_recheck_required') ??
  false;

interface CurrentPasswordFieldProps<F extends string> {
  form: Form<F | 'current_password'>;
  label: string;
  /** The signed-in account's address. */
  email: string;
  /**
   * Why it is asked for again (the change needs the password proved lately): said above it, and
   * read after its error.
   */
  asked?: { id: string; text: string };
}

/**
 * The form's `current_password` input, after a hidden username that tells password managers
 * which account the password (and any new one in the form) belongs to.
 */
export function CurrentPasswordField<F extends string>({ form, label, email, asked }: CurrentPasswordFieldProps<F>) {
  return (
    <>
      {asked && (
        <p className="notice" id={asked.id}>
          {asked.text}
        </p>
      )}
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
      <PasswordField
        form={form}
        name="current_password"
        label={label}
        autoComplete="current-password"
        describedBy={asked && [asked.id]}
      />
    </>
  );
}
