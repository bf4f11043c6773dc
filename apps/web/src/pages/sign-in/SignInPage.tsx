import { lazy, Suspense, useState } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { Loading } from '../../components/Status';
import { useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { navigate, Redirect, useLocation } from '../../router';
import { safeNext } from '@accounts/validators/safe-next';
import { useSession, useSetSignedIn, type SignedInUser } from '../../session';
import { PasswordStep } from './PasswordStep';
import { addressedStep, endedStep, postedStep, type Step } from './step';

// The second step loads when an account asks for it: most sign-ins never do.
const SecondStep = lazy(() => import('./SecondStep').then((m) => ({ default: m.SecondStep })));

export function SignInPage() {
  const { t } = useI18n();
  const session = useSession();
  const { search } = useLocation();
  const next = safeNext(search.get('next'));
  const setSignedIn = useSetSignedIn();
  // Posted without scripts: the step the server's answer leads to.
  const passwordStep = useFormOutcome('signIn');
  const secondStep = useFormOutcome('secondStep');
  const [step, setStep] = useState<Step>(
    () =>
      postedStep(passwordStep, secondStep) ??
      addressedStep(search) ?? { name: 'password', email: search.get('email') ?? '' },
  );

  // An app that asked for a new sign-in (OpenID Connect prompt=login, max_age) gets the form even
  // when a session is live: signing in again starts a new one.
  if (session.status === 'signed-in' && search.get('prompt') !== 'login') return <Redirect to={next} />;

  // `to`: where the form says its success leads instead (a recovery code used: the account page says so).
  const signedIn = (user: SignedInUser, to = next) => {
    setSignedIn(user);
    // Replaced, so Back from the page they came for does not return to this form.
    navigate(to, { replace: true });
  };

  return (
    <>
      <PageHeading>{t('signInTitle')}</PageHeading>
      {step.name === 'code' ? (
        <Suspense fallback={<Loading />}>
          <SecondStep
            email={step.email}
            methods={step.methods}
            onSignedIn={signedIn}
            onExpired={(ended) => setStep(endedStep(step.email, ended))}
            onRestart={() => setStep({ name: 'password', email: step.email, back: 'restart' })}
          />
        </Suspense>
      ) : (
        <PasswordStep
          email={step.email}
          back={step.back}
          wait={step.wait}
          next={next}
          onSignedIn={signedIn}
          onSecondStep={(email, methods) => setStep({ name: 'code', email, methods })}
        />
      )}
    </>
  );
}
