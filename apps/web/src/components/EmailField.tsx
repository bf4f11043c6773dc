import type { ReactNode } from 'react';
import type { Form } from '../forms/useForm';
import { Field } from './Field';

interface EmailFieldProps<F extends string> {
  form: Form<F | 'email'>;
  label: string;
  /**
   * `username` where the address signs in (password managers fill it; with `webauthn`, the
   * browser offers passkeys there too), `email` where an account is made.
   */
  autoComplete: 'username' | 'username webauthn' | 'email';
  /** Rendered under the input, e.g. a way out of an error. */
  children?: ReactNode;
}

/** The form's `email` input: an address is neither capitalised nor spell-checked. */
export function EmailField<F extends string>({ form, label, autoComplete, children }: EmailFieldProps<F>) {
  return (
    <Field
      form={form}
      name="email"
      label={label}
      type="email"
      autoComplete={autoComplete}
      autoCapitalize="none"
      spellCheck={false}
    >
      {children}
    </Field>
  );
}
