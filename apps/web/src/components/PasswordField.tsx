import { useState } from 'react';
import { useHydrated } from '../hydrated';
import type { Form } from '../forms/useForm';
import { useI18n } from '../i18n';
import { Field } from './Field';

interface PasswordFieldProps<F extends string> {
  form: Form<F>;
  name: F;
  label: string;
  autoComplete: 'current-password' | 'new-password';
  describedBy?: string[];
  children?: React.ReactNode;
}

/** A password input with a show/hide toggle; the toggle never submits and keeps the value. */
export function PasswordField<F extends string>({
  form,
  name,
  label,
  autoComplete,
  describedBy,
  children,
}: PasswordFieldProps<F>) {
  const { locale, t } = useI18n();
  const [visible, setVisible] = useState(false);
  // Read inside a sentence ("Show current password"): German nouns keep their capital.
  const inSentence = locale === 'de' ? label : label.charAt(0).toLowerCase() + label.slice(1);
  const hydrated = useHydrated();
  const toggle = (
    <button
      type="button"
      className="toggle"
      aria-controls={name}
      aria-label={t(visible ? 'hidePasswordLabel' : 'showPasswordLabel', { label: inSentence })}
      onClick={() => setVisible((v) => !v)}
    >
      {visible ? t('hidePassword') : t('showPassword')}
    </button>
  );
  return (
    <Field
      form={form}
      name={name}
      label={label}
      type={visible ? 'text' : 'password'}
      autoComplete={autoComplete}
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      describedBy={describedBy}
      // Showing the password needs the app: without scripts the field is a plain password field.
      addon={hydrated ? toggle : undefined}
    >
      {children}
    </Field>
  );
}
