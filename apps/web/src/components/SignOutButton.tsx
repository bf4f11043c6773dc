import { useState, type FormEvent } from 'react';
import { describeFailure } from '../failure';
import { problemError, useFormOutcome } from '../forms/form-outcome';
import { useI18n } from '../i18n';
import { navigate } from '../router';
import { useForgetSession } from '../session';
import { trpc } from '../trpc';
import { PostForm } from './PostForm';

export function SignOutButton() {
  const { t, locale } = useI18n();
  const forgetSession = useForgetSession();
  const signOut = trpc.account.signOut.useMutation();
  // Refused without scripts (the service's trouble, say): the page the server answers with says so.
  const posted = useFormOutcome('signOut');
  const [error, setError] = useState<string | null>(() =>
    posted?.problem ? describeFailure(problemError(posted.problem), locale).message : null,
  );

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (signOut.isPending) return;
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
    <PostForm name="signOut" onSubmit={onSubmit} busy={signOut.isPending} className="sign-out">
      <button type="submit" className="secondary" disabled={signOut.isPending}>
        {signOut.isPending ? t('signingOut') : t('signOut')}
      </button>
      {error && (
        <p className="header-error" role="alert">
          {error}
        </p>
      )}
    </PostForm>
  );
}
