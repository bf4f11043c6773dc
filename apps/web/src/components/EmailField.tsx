import type { ReactNode } from 'react';
import type { Form } from '../forms/useForm';
import { Field } from './Field';

interface EmailFieldProps<F extends string, N extends string> {
  form: Form<F | N>;
  /** The field's name: `email`, or `new_email` where an account moves to another address. */
  name?: N;
  label: string;
  /**
   * `username` where the address signs in (password managers fill it; with `webauthn`, the
   * browser offers passkeys there too), `email` where an account is made.
   */
  autoComplete: 'username' | 'username webauthn' | 'email';
  /** Rendered under the input, e.g. a way out of an error. */
  children?: ReactNode;
}

/** The form's `email` input (or another address's): an address is neither capitalised nor spell-checked. */
export function EmailField<F extends string, N extends string = 'email'>({
  form,
  name = 'email' as N,
  label,
  autoComplete,
  children,
}: EmailFieldProps<F, N>) {
  return (
    <Field
      form={form}
      name={name}
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
