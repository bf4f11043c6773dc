import type { InputHTMLAttributes, ReactNode } from 'react';
import type { Form } from '../forms/useForm';

export const errorIdOf = (field: string) => `${field}-error`;

interface FieldProps<F extends string> extends Omit<InputHTMLAttributes<HTMLInputElement>, 'form' | 'name'> {
  form: Form<F>;
  name: F;
  label: string;
  /** Ids of extra descriptions (hints, the strength checks). */
  describedBy?: string[];
  /** Rendered beside the input, e.g. the show/hide toggle. */
  addon?: ReactNode;
  /** Rendered under the error line, e.g. the strength meter. */
  children?: ReactNode;
}

/**
 * A labelled input with its error line. The error line is always in the layout, so a message
 * appearing does not push the rest of the form down.
 */
export function Field<F extends string>({ form, name, label, describedBy = [], addon, children, ...input }: FieldProps<F>) {
  const error = form.errorFor(name);
  const errorId = errorIdOf(name);
  const describedByIds = [...describedBy, ...(error ? [errorId] : [])].join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <div className="input-row">
        <input
          {...input}
          {...form.inputProps(name)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedByIds}
        />
        {addon}
      </div>
      <p className="field-error" id={errorId}>
        {error}
      </p>
      {children}
    </div>
  );
}
