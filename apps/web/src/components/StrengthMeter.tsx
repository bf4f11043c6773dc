import {
  passwordStrength,
  type PasswordContext,
  type PasswordEstimator,
  type PasswordPolicy,
  type StrengthCheck,
} from '@accounts/validators';
import { usePasswordPageText, type PasswordPageKey } from '../i18n/password-page-strings';

const CHECK_LABELS: Record<StrengthCheck, PasswordPageKey> = {
  length: 'checkLength',
  not_common: 'checkNotCommon',
  not_similar: 'checkNotSimilar',
};

interface StrengthMeterProps {
  id: string;
  password: string;
  policy: PasswordPolicy;
  context: PasswordContext;
  /** The server's estimator (usePasswordEstimator); null while it loads. */
  estimator: PasswordEstimator | null;
}

/** The level's element; the password input reads it after its error and before the checks. */
export const strengthLevelId = (id: string) => `${id}-level`;

/**
 * The server's own password rule, run as the user types: a bar for the score and a list of
 * the rules. The list is the password input's description, so screen readers read it there.
 * The score reaches "good" only for a password the server accepts.
 */
export function StrengthMeter({ id, password, policy, context, estimator }: StrengthMeterProps) {
  const t = usePasswordPageText();
  const { passed, score, pending } = passwordStrength(password, policy, context, estimator);
  const level = pending
    ? t('strengthPending')
    : t('strengthLabel', { level: t(`strength${score}` as PasswordPageKey) });
  return (
    <div className="strength" data-score={password ? score : undefined} aria-busy={pending}>
      <div className="strength-bar" aria-hidden="true">
        {[1, 2, 3, 4].map((step) => (
          <span key={step} className={password && score >= step ? 'on' : undefined} />
        ))}
      </div>
      <p className="strength-level" id={strengthLevelId(id)}>
        {password ? level : t('strengthEmpty')}
      </p>
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
