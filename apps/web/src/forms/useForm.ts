import { toFieldErrors, type FieldError, type Locale } from '@accounts/validators';
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { describeFailure, isUnauthenticated } from '../failure';
import { useI18n, type UiKey } from '../i18n';
import type { PageFormName } from '../page-forms';
import { useSessionEnded } from '../session';
import { problemError, useFormOutcome } from './form-outcome';
import { forgetKeptValues, keepForAfterSignIn, keptValues } from './kept-values';

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

/** What the last submit found wrong, as it was then: the summary does not change while people type. */
export interface SubmitReport {
  entries: SummaryEntry[];
  /** A problem that belongs to no single field (wrong credentials, rate limit, network, server). */
  message: string | null;
  /** Counts failed submits, so the summary takes focus again even when the errors are the same. */
  key: number;
}

interface FormOptions<F extends string, N extends PageFormName | null> {
  /**
   * Which of the page's forms this is (PAGE_FORMS): the browser posts it as `_form` without
   * scripts. Null for a form that only the app shows (adding a passkey: WebAuthn is a script API).
   */
  name: N;
  initial: Record<F, string>;
  /** The schema for the current values; rebuilt by the caller when its context changes. */
  schema: FormSchema;
  /** Sends the values; throws the API error on failure. */
  submit: (values: Record<F, string>) => Promise<void>;
  /**
   * Fields kept when the session turns out to have ended on submit (never passwords): the person
   * signs in again and comes back here to find them as they were.
   */
  keep?: readonly NoInfer<F>[];
  /** What to say for each field left empty ("Enter your email address") instead of the generic text. */
  whenEmpty?: Partial<Record<NoInfer<F>, UiKey>>;
  /**
   * Refusals that are the page's to show, not the form's (the password asked for again, a page
   * out of date): a form posted without scripts that met one starts with nothing marked wrong,
   * as the app's own submit leaves it.
   */
  pageShows?: (error: unknown) => boolean;
  /**
   * Fields emptied when a submit is refused (a password that was wrong), so the next try starts
   * from nothing typed and is not marked as missing. Posted without scripts they come back empty anyway.
   */
  clearOnFailure?: readonly NoInfer<F>[];
}

/**
 * Form state for the account pages: values, client-side errors from the shared schema,
 * server errors from the last submit, and a guard against sending twice.
 *
 * Fields' errors show after a submit, never as a field is left: an error that appeared on leaving
 * a field would push the submit button down as the pointer goes to it. After a submit each field
 * shows its error and follows what is typed. The summary is the report of the last submit and
 * stays as it was until the next.
 */
type ServerErrors<F extends string> = Partial<Record<F, { code: string; message: string }>>;

export function useForm<F extends string, N extends PageFormName | null = PageFormName | null>({
  name,
  initial,
  schema,
  submit,
  keep = [],
  whenEmpty = {},
  pageShows = () => false,
  clearOnFailure = [],
}: FormOptions<F, N>) {
  const { locale, t } = useI18n();
  const sessionEnded = useSessionEnded();
  const fields = Object.keys(initial) as F[];
  const isKnown = (field: string): field is F => (fields as string[]).includes(field);
  const worded = <E extends { field: string; code: string; message: string }>(e: E): E => {
    const empty = e.code === 'required' ? whenEmpty[e.field as F] : undefined;
    return empty ? { ...e, message: t(empty) } : e;
  };
  /** A failed request, as the form shows it: beside its fields, and in the summary. */
  const failureOf = (error: unknown) => {
    const failure = describeFailure(error, locale);
    const known = failure.fieldErrors.filter((e) => isKnown(e.field)).map(worded);
    const unknown = failure.fieldErrors.filter((e) => !isKnown(e.field));
    return {
      serverErrors: Object.fromEntries(
        known.map((e) => [e.field, { code: e.code, message: e.message }]),
      ) as ServerErrors<F>,
      entries: known.map((e) => ({ field: e.field, message: e.message })),
      message: [failure.message, ...unknown.map((e) => e.message)].filter(Boolean).join(' ') || null,
    };
  };

  // Posted without scripts, the server's answer is where this form starts: what was entered
  // (never a password), and what was wrong with it, exactly as after a submit here.
  const outcome = useFormOutcome(name);
  const [posted] = useState(() => {
    const error = outcome?.problem && problemError(outcome.problem);
    return error && !pageShows(error) ? failureOf(error) : null;
  });
  // A success starts the form afresh, as after the app's own submit.
  const refused = outcome?.problem ? outcome.values : {};
  const [values, setValues] = useState<Record<F, string>>(() => ({
    ...initial,
    ...Object.fromEntries(fields.filter((f) => typeof refused[f] === 'string').map((f) => [f, refused[f]])),
    ...keptValues(fields),
  }));
  useEffect(forgetKeptValues, []);
  // What was typed before the app took the page over is in the inputs, not yet in the state.
  useEffect(() => {
    const typed = fields.flatMap((f) => {
      const input = document.getElementById(f);
      return input instanceof HTMLInputElement && input.type !== 'hidden' && input.value !== values[f]
        ? [[f, input.value] as const]
        : [];
    });
    if (typed.length) setValues((prev) => ({ ...prev, ...Object.fromEntries(typed) }));
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const [attempted, setAttempted] = useState(posted !== null);
  const [serverErrors, setServerErrors] = useState<ServerErrors<F>>(posted?.serverErrors ?? {});
  const [report, setReport] = useState<SubmitReport>({
    entries: posted?.entries ?? [],
    message: posted?.message ?? null,
    // A refusal the page arrived with (posted before the app ran) is shown as after a submit:
    // its summary takes focus once the app runs.
    key: posted ? 1 : 0,
  });
  const [submitting, setSubmitting] = useState(false);
  // State updates land after the event; the ref stops a second click in the same tick.
  const inFlight = useRef(false);

  // Checked only when an error is to be shown or the form is sent: a page taking over its form
  // then checks nothing (a name's check alone starts the browser's text segmenter, a long task on a phone).
  let checked: Map<string, FieldError> | undefined;
  const clientErrors = () =>
    (checked ??= new Map(schemaErrors(schema, values, locale).map((e) => [e.field, worded(e)])));

  const errorFor = (field: F): string | undefined => {
    if (serverErrors[field]) return serverErrors[field].message;
    return attempted ? clientErrors().get(field)?.message : undefined;
  };

  /** The code of the error shown for a field, for pages that offer a way out (e.g. email_taken). */
  const errorCodeFor = (field: F): string | undefined =>
    errorFor(field) ? (serverErrors[field]?.code ?? clientErrors().get(field)?.code) : undefined;

  const setValue = (field: F, value: string) => {
    setValues((prev) => ({ ...prev, [field]: value }));
    setServerErrors((prev) => {
      if (!(field in prev)) return prev;
      const rest = { ...prev };
      delete rest[field];
      return rest;
    });
  };

  const fail = (entries: SummaryEntry[], message: string | null) =>
    setReport((r) => ({ entries, message, key: r.key + 1 }));

  /** A failed request, said in the summary and beside its fields; a session that ended leads to sign-in. */
  const reportFailure = (error: unknown) => {
    if (isUnauthenticated(error)) {
      keepForAfterSignIn(Object.fromEntries(keep.map((field) => [field, values[field]])));
      sessionEnded();
      return;
    }
    const failure = failureOf(error);
    setServerErrors(failure.serverErrors);
    fail(failure.entries, failure.message);
    if (clearOnFailure.length === 0) return;
    setValues((prev) => ({ ...prev, ...Object.fromEntries(clearOnFailure.map((f) => [f, ''])) }));
    // Emptied on purpose: not a field left out.
    setAttempted(false);
  };

  /**
   * The failure of something done beside the form (a passkey instead of the password, say),
   * reported in the form's summary as a submit's would be: one summary per form, as always.
   */
  const failWith = (error: unknown) => {
    setServerErrors({});
    reportFailure(error);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (inFlight.current) return;
    setAttempted(true);
    setServerErrors({});
    if (clientErrors().size > 0) {
      fail(
        fields.flatMap((field) => {
          const error = clientErrors().get(field);
          return error ? [{ field, message: error.message }] : [];
        }),
        null,
      );
      return;
    }
    inFlight.current = true;
    setSubmitting(true);
    try {
      await submit(values);
      setReport((r) => ({ entries: [], message: null, key: r.key }));
    } catch (error) {
      reportFailure(error);
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
  };

  /** Back to a fresh form: the initial values, or some kept (`values`); nothing shown as wrong. */
  const reset = (values: Partial<Record<F, string>> = {}) => {
    setValues({ ...initial, ...values });
    setAttempted(false);
    setServerErrors({});
    setReport((r) => ({ entries: [], message: null, key: r.key }));
  };

  /** Props for the input of one field; ids double as the summary's link targets. */
  const inputProps = (field: F) => ({
    id: field,
    name: field,
    value: values[field],
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValue(field, event.target.value),
  });

  return { name, values, errorFor, errorCodeFor, inputProps, onSubmit, submitting, report, reset, failWith };
}

export type Form<F extends string> = ReturnType<typeof useForm<F>>;
