import type { InputHTMLAttributes, ReactNode } from 'react';
import type { Form } from '../forms/useForm';

export const errorIdOf = (field: string) => `${field}-error`;

interface FieldProps<F extends string> extends Omit<InputHTMLAttributes<HTMLInputElement>, 'form' | 'name'> {
  form: Form<F>;
  name: F;
  label: string;
  /** Ids of further descriptions (the strength level, its checks), read after the error. */
  describedBy?: string[];
  /** Rendered beside the input, e.g. the show/hide toggle. */
  addon?: ReactNode;
  /** Rendered under the input, e.g. the strength meter or a way out of an error. */
  children?: ReactNode;
}

/**
 * A labelled input. Its error, when there is one, sits between the label and the input (as in
 * GOV.UK's pattern) and is read first; nothing is reserved for an error that is not there.
 */
export function Field<F extends string>({
  form,
  name,
  label,
  describedBy = [],
  addon,
  children,
  required = true,
  ...input
}: FieldProps<F>) {
  const error = form.errorFor(name);
  const errorId = errorIdOf(name);
  const describedByIds = [...(error ? [errorId] : []), ...describedBy].join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <p className="field-error" id={errorId}>
        {error}
      </p>
      <div className="input-row">
        <input
          {...input}
          {...form.inputProps(name)}
          required={required}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedByIds}
        />
        {addon}
      </div>
      {children}
    </div>
  );
}
