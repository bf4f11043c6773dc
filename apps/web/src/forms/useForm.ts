import { toFieldErrors, type FieldError, type Locale } from '@accounts/validators';
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { describeFailure } from '../failure';
import { useI18n } from '../i18n';

/** Any of the shared zod schemas from @accounts/validators. */
export interface FormSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: Parameters<typeof toFieldErrors>[0] };
}

export function schemaErrors(schema: FormSchema, values: unknown, locale: Locale): FieldError[] {
  const result = schema.safeParse(values);
  return result.success ? [] : toFieldErrors(result.error, locale);
}

export interface SummaryEntry {
  field: string;
  message: string;
}

interface FormOptions<F extends string> {
  initial: Record<F, string>;
  /** The schema for the current values; rebuilt by the caller when its context changes. */
  schema: FormSchema;
  /** Sends the values; throws the API error on failure. */
  submit: (values: Record<F, string>) => Promise<void>;
}

/**
 * Form state for the account pages: values, client-side errors from the shared schema,
 * server errors from the last submit, and a guard against sending twice.
 *
 * A field's own error shows once the user has edited it and left it, then updates as they
 * type; after a submit attempt every field shows its error.
 */
export function useForm<F extends string>({ initial, schema, submit }: FormOptions<F>) {
  const { locale } = useI18n();
  const fields = Object.keys(initial) as F[];
  const [values, setValues] = useState(initial);
  const [edited, setEdited] = useState<ReadonlySet<F>>(new Set());
  const [left, setLeft] = useState<ReadonlySet<F>>(new Set());
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<F, string>>>({});
  const [formMessage, setFormMessage] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  // State updates land after the event; the ref stops a second click in the same tick.
  const inFlight = useRef(false);
  // Bumped on every failed submit so the summary takes focus again, even with the same errors.
  const [failedSubmits, setFailedSubmits] = useState(0);

  const clientErrors = new Map(schemaErrors(schema, values, locale).map((e) => [e.field, e.message]));
  const isKnown = (field: string): field is F => (fields as string[]).includes(field);

  const errorFor = (field: F): string | undefined => {
    if (serverErrors[field]) return serverErrors[field];
    if (attempted || (edited.has(field) && left.has(field))) return clientErrors.get(field);
    return undefined;
  };

  const summary: SummaryEntry[] = attempted
    ? fields.flatMap((field) => {
        const message = errorFor(field);
        return message ? [{ field, message }] : [];
      })
    : [];

  const setValue = (field: F, value: string) => {
    setValues((prev) => ({ ...prev, [field]: value }));
    setEdited((prev) => (prev.has(field) ? prev : new Set(prev).add(field)));
    setServerErrors((prev) => {
      if (!(field in prev)) return prev;
      const { [field]: _, ...rest } = prev;
      return rest as Partial<Record<F, string>>;
    });
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (inFlight.current) return;
    setAttempted(true);
    setServerErrors({});
    setFormMessage(null);
    if (clientErrors.size > 0) {
      setFailedSubmits((n) => n + 1);
      return;
    }
    inFlight.current = true;
    setSubmitting(true);
    try {
      await submit(values);
    } catch (error) {
      const failure = describeFailure(error, locale);
      const known = failure.fieldErrors.filter((e) => isKnown(e.field));
      const unknown = failure.fieldErrors.filter((e) => !isKnown(e.field));
      setServerErrors(Object.fromEntries(known.map((e) => [e.field, e.message])) as Partial<Record<F, string>>);
      setFormMessage([failure.message, ...unknown.map((e) => e.message)].filter(Boolean).join(' ') || null);
      setFailedSubmits((n) => n + 1);
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
  };

  const reset = () => {
    setValues(initial);
    setEdited(new Set());
    setLeft(new Set());
    setAttempted(false);
    setServerErrors({});
    setFormMessage(null);
  };

  /** Props for the input of one field; ids double as the summary's link targets. */
  const inputProps = (field: F) => ({
    id: field,
    name: field,
    value: values[field],
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValue(field, event.target.value),
    onBlur: () => setLeft((prev) => (prev.has(field) ? prev : new Set(prev).add(field))),
  });

  return { values, errorFor, inputProps, onSubmit, submitting, summary, formMessage, failedSubmits, reset };
}

export type Form<F extends string> = ReturnType<typeof useForm<F>>;
