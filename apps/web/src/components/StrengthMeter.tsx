import { passwordStrength, type PasswordContext, type PasswordPolicy, type StrengthCheck } from '@accounts/validators';
import { useI18n, type UiKey } from '../i18n';

const CHECK_LABELS: Record<StrengthCheck, UiKey> = {
  length: 'checkLength',
  not_common: 'checkNotCommon',
  not_similar: 'checkNotSimilar',
};

interface StrengthMeterProps {
  id: string;
  password: string;
  policy: PasswordPolicy;
  context: PasswordContext;
}

/**
 * The server's own password checks, run as the user types: a bar for the score and a list of
 * the rules. The list is the password input's description, so screen readers read it there.
 */
export function StrengthMeter({ id, password, policy, context }: StrengthMeterProps) {
  const { t } = useI18n();
  const { passed, score } = passwordStrength(password, policy, context);
  const level = t('strengthLabel', { level: t(`strength${score}` as UiKey) });
  return (
    <div className="strength" data-score={password ? score : undefined}>
      <div className="strength-bar" aria-hidden="true">
        {[1, 2, 3, 4].map((step) => (
          <span key={step} className={password && score >= step ? 'on' : undefined} />
        ))}
      </div>
      <p className="strength-level">{password ? level : t('strengthEmpty')}</p>
      <ul className="strength-checks" id={id}>
        {(Object.keys(CHECK_LABELS) as StrengthCheck[]).map((check) => (
          <li key={check} className={passed[check] ? 'met' : undefined}>
            <span aria-hidden="true" className="mark">
              {passed[check] ? '✓' : '•'}
            </span>{' '}
            {t(CHECK_LABELS[check], { min: policy.minLength })}
            <span className="visually-hidden"> ({passed[check] ? t('checkMet') : t('checkNotMet')})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
