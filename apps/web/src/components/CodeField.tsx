import type { Form } from '../forms/useForm';
import { useCodeText, type CodeKey } from '../i18n/code-strings';
import { Field } from './Field';

/** What a code field takes: an app's six digits, a recovery code, or either. */
export type CodeKind = 'app' | 'recovery' | 'either';

const LABELS: Readonly<Record<CodeKind, CodeKey>> = {
  app: 'fieldCode',
  recovery: 'fieldRecoveryCode',
  either: 'fieldAnyCode',
};

/** A code field's label by its kind (the form's summary names the field the same), in the page's language. */
export function useCodeLabel() {
  const c = useCodeText();
  return (kind: CodeKind) => c(LABELS[kind]);
}

interface CodeFieldProps<F extends string, N extends string> {
  form: Form<F | N>;
  /** The field's name: `code` unless the form has another code already (`recovery_code`). */
  name?: N;
  kind: CodeKind;
  label: string;
  /** Ids of the instructions the input is described by, read after its error. */
  describedBy?: string[];
}

/**
 * The form's `code` input for a second step. An app's code brings up the number pad and lets the
 * phone offer a code it received (`one-time-code`); a recovery code has letters, so neither. A code
 * is never capitalised, corrected or spell-checked.
 */
export function CodeField<F extends string, N extends string = 'code'>({
  form,
  name = 'code' as N,
  kind,
  label,
  describedBy,
}: CodeFieldProps<F, N>) {
  return (
    <Field
      form={form}
      name={name}
      label={label}
      type="text"
      inputMode={kind === 'app' ? 'numeric' : undefined}
      autoComplete={kind === 'recovery' ? 'off' : 'one-time-code'}
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      describedBy={describedBy}
    />
  );
}
