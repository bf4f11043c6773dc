import { useState } from 'react';
import { useHydrated } from '../hydrated';
import { describeFailure } from '../failure';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { useForgetSession } from '../session';
import { trpc } from '../trpc';

export function SignOutButton() {
  const { t, locale } = useI18n();
  const forgetSession = useForgetSession();
  const signOut = trpc.account.signOut.useMutation();
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);

  const onClick = () => {
    setError(null);
    signOut.mutate(undefined, {
      onSuccess: () => {
        // Leave first: a protected page that saw the session vanish would add ?next= to the login URL.
        navigate('/login');
        void forgetSession();
      },
      onError: (err) => setError(describeFailure(err, locale).message),
    });
  };

  return (
    <>
      <button type="button" className="secondary" onClick={onClick} disabled={signOut.isPending || !hydrated}>
        {signOut.isPending ? t('signingOut') : t('signOut')}
      </button>
      {error && (
        <p className="header-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
