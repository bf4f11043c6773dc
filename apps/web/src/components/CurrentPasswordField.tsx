import type { Form } from '../forms/useForm';
import { PasswordField } from './PasswordField';

interface CurrentPasswordFieldProps<F extends string> {
  form: Form<F | 'current_password'>;
  label: string;
  /** The signed-in account's address. */
  email: string;
  /** Ids of further descriptions of the input (why it is asked for), read after its error. */
  describedBy?: string[];
}

/**
 * The form's `current_password` input, after a hidden username that tells password managers
 * which account the password (and any new one in the form) belongs to.
 */
export function CurrentPasswordField<F extends string>({
  form,
  label,
  email,
  describedBy,
}: CurrentPasswordFieldProps<F>) {
  return (
    <>
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
      <PasswordField
        form={form}
        name="current_password"
        label={label}
        autoComplete="current-password"
        describedBy={describedBy}
      />
    </>
  );
}
