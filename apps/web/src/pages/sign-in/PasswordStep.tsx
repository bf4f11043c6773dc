import { message, signInSchema, type SecondStepMethod } from '@accounts/validators';
import { useEffect, useRef } from 'react';
import { EmailField } from '../../components/EmailField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PasswordField } from '../../components/PasswordField';
import { postFormOf, PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { LinkPendingNotice, UpstreamProviders, useAddressedReport } from '../../components/UpstreamSignIn';
import { useForm } from '../../forms/useForm';
import { useHydrated } from '../../hydrated';
import { useI18n, type UiKey } from '../../i18n';
import { Link, useLocation } from '../../router';
import { useRealmSettings, type SignedInUser } from '../../session';
import { problemOf, trpc } from '../../trpc';
import { wasPasswordReset } from '../page-state';
import { methodsOf } from './step';
import { usePasskeySignIn } from './usePasskeySignIn';

/** Why to sign in again, by the page the person was on when their session ended. */
const SIGNED_OUT_REASONS: Record<string, UiKey> = {
  '/settings': 'signedOutToChangePassword',
};

/** The sign-in's first step: the address and the password, or a passkey alone. */
export function PasswordStep({
  email,
  back,
  wait,
  next,
  onSignedIn,
  onSecondStep,
}: {
  email: string;
  back?: 'expired' | 'too_many_codes' | 'restart';
  wait?: number;
  next: string;
  onSignedIn: (user: SignedInUser) => void;
  onSecondStep: (email: string, methods: SecondStepMethod[]) => void;
}) {
  const { locale, t } = useI18n();
  const { realm } = useRealmSettings();
  const { search, state } = useLocation();
  const expired = search.get('expired') === '1';
  const linkPending = search.get('link') === 'pending';
  const afterReset = wasPasswordReset(state);
  const signIn = trpc.account.signIn.useMutation();
  const hydrated = useHydrated();
  // Back from the code step by choice: the form it replaced had focus, so the address takes it.
  useEffect(() => {
    if (back === 'restart') document.getElementById('email')?.focus();
  }, [back]);

  const form = useForm({
    name: 'signIn',
    initial: { email, password: '' },
    schema: signInSchema,
    whenEmpty: { email: 'emptyEmail', password: 'emptyPassword' },
    clearOnFailure: ['password'],
    submit: async (values) => {
      try {
        const { user } = await signIn.mutateAsync(values);
        onSignedIn(user);
      } catch (error) {
        // The password was right; the account asks for its second step (the server keeps the
        // pending sign-in in a cookie of its own).
        const problem = problemOf(error);
        if (problem?.code === 'second_factor_required') onSecondStep(values.email, methodsOf(problem.methods));
        else throw error;
      }
    },
  });
  const passkey = usePasskeySignIn(form, onSignedIn);
  const report = useAddressedReport(form.report);

  const labels = { email: t('fieldEmail'), password: t('fieldPassword') };
  const registerPath = next === '/account' ? '/register' : `/register?next=${encodeURIComponent(next)}`;
  const reason = SIGNED_OUT_REASONS[new URL(next, 'http://local').pathname] ?? 'signedOutToContinue';

  return (
    <>
      {back === 'too_many_codes' ? (
        <SecondStepExpired text={message('too_many_codes', locale, { retryAfter: wait })} />
      ) : back === 'expired' ? (
        <SecondStepExpired text={message('sign_in_expired', locale)} />
      ) : afterReset ? (
        <div className="success password-reset" role="status">
          <p>{t('passwordResetSignIn')}</p>
        </div>
      ) : expired ? (
        <div className="notice">
          <p>{t(reason)}</p>
        </div>
      ) : linkPending ? (
        <LinkPendingNotice />
      ) : (
        <p className="intro">{t('signInIntro', { realm: realm.name })}</p>
      )}
      <ErrorSummary report={report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <EmailField form={form} label={labels.email} autoComplete="username webauthn" />
        <PasswordField form={form} name="password" label={labels.password} autoComplete="current-password" />
        <p>
          <Link to="/forgot-password">{t('forgotLink')}</Link>
        </p>
        <SubmitButton busy={form.submitting} label={t('signInSubmit')} busyLabel={t('signInBusy')} />
      </PostForm>
      {/* A passkey needs the app (WebAuthn is a script API): without scripts the button is absent. */}
      {hydrated && (
        <div className="passkey-sign-in">
          <button type="button" className="secondary" disabled={passkey.busy} onClick={() => void passkey.signIn()}>
            {passkey.busy ? t('passkeyWaiting') : t('passkeySignIn')}
          </button>
          <p className="passkey-note" role="status">
            {passkey.note}
          </p>
        </div>
      )}
      <UpstreamProviders next={next} />
      <p className="switch">
        {t('noAccount')} <Link to={registerPath}>{t('navRegister')}</Link>
      </p>
    </>
  );
}

/** Why the password is asked again: takes focus (the code form it replaces had it), so it is read out. */
function SecondStepExpired({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="notice sign-in-expired" tabIndex={-1} ref={ref}>
      <p>{text}</p>
    </div>
  );
}
