import { useI18n } from '../i18n';
import { Link } from '../router';
import { useTwoStep } from '../session';

/**
 * The way to the two-step sign-in page, and whether it is on: the state follows the link once it
 * is known (a rendered page may not carry it), so nothing around it moves.
 */
export function TwoStepLink() {
  const { t } = useI18n();
  const { twoStep } = useTwoStep();
  return (
    <>
      <Link to="/settings/two-step">{t('twoStepTitle')}</Link>
      {twoStep && (
        <>
          {' '}
          <span className={twoStep.enabled ? 'badge two-step-badge' : 'badge badge-off two-step-badge'}>
            {twoStep.enabled ? t('twoStepStateOn') : t('twoStepStateOff')}
          </span>
        </>
      )}
    </>
  );
}
