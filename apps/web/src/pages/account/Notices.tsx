import type { FormEvent } from 'react';
import { useState } from 'react';
import { PostForm } from '../../components/PostForm';
import { SaidRegion, type Said } from '../../components/Said';
import { describeFailure } from '../../failure';
import { useFocusNext } from '../../focus';
import { problemError, useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { RECOVERY_CODE_NOTICE } from '../../page-forms';
import { Link, useLocation } from '../../router';
import { useTwoStep, type AccountSecurity, type MeAnswer, type SignedInUser } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';
import { wasRegistered } from '../page-state';
import { useHubText } from './strings';

// What the hub says at its top besides a password change: where the confirmation link of a new
// account went, a sign-in with a recovery code, and the suggestion of a second factor.

/** The hidden field of the registration notice's own "Send it again", so the page knows whose answer came back. */
const FROM_REGISTERED = { notice: 'registered' };

type ResendResult = RouterOutputs['email']['resendVerification'];

/** account.me's `security` (when the password was set, the suggestion), once known: asked for with the two-step state. */
export function useAccountSecurity(): AccountSecurity | undefined {
  useTwoStep();
  return (trpc.account.me.useQuery(undefined).data as Partial<MeAnswer> | undefined)?.security;
}

/**
 * Whether the page shows the registration notice: just after registering (history state, or the
 * state a form posted without scripts handed over), or answering that notice's own "Send it again".
 */
export function useShowsRegistered(user: SignedInUser): boolean {
  const { state } = useLocation();
  const posted = useFormOutcome('resendVerification');
  if (posted?.values.notice === FROM_REGISTERED.notice) return true;
  return wasRegistered(state) && !user.emailVerified;
}

/**
 * Just registered: the confirmation link went to the address, with a way to get it again and to
 * the change of address, in one status box that then says how "Send it again" went.
 */
export function RegisteredNotice({ user }: { user: SignedInUser }) {
  const h = useHubText();
  const { locale } = useI18n();
  const focusNext = useFocusNext();
  // Its button goes once the link went: focus goes to what the box now says.
  const resend = trpc.email.resendVerification.useMutation({ onSuccess: () => focusNext('#registered-said') });
  // Sent without scripts: the page the server answers with says how it went, as after a click here.
  const posted = useFormOutcome('resendVerification');
  const fresh = resend.isIdle;
  const done: ResendResult | null =
    resend.data ?? (fresh && posted && !posted.problem ? (posted.result as ResendResult) : null);
  const failure = resend.error ?? (fresh && posted?.problem ? problemError(posted.problem) : null);
  const said: Said = done
    ? {
        text: done.alreadyVerified ? h('registeredAlready') : h('registeredSentAgain', { email: user.email }),
        tone: 'success',
      }
    : failure
      ? { text: describeFailure(failure, locale).message ?? '', tone: 'notice' }
      : { text: h('registeredSent', { email: user.email }), tone: 'success' };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!resend.isPending) resend.mutate();
  };
  return (
    <SaidRegion id="registered-said" said={said}>
      {/* A block, not a paragraph: a form may not stand inside a <p>. */}
      <div className="said-actions">
        {!done && (
          <>
            <PostForm
              name="resendVerification"
              hidden={FROM_REGISTERED}
              onSubmit={onSubmit}
              busy={resend.isPending}
              className="inline-form"
            >
              <button type="submit" className="link-button" disabled={resend.isPending}>
                {resend.isPending ? h('registeredSending') : h('registeredSendAgain')}
              </button>
            </PostForm>
            {' · '}
          </>
        )}
        <span className="said-together">
          {h('registeredWrongAddress')} <Link to="/settings/email">{h('registeredChangeIt')}</Link>
        </span>
      </div>
    </SaidRegion>
  );
}

/** Opened as `/account?notice=recovery_code_used` after a sign-in with a recovery code: how many are left. */
export function RecoveryCodeNotice() {
  const h = useHubText();
  const { search } = useLocation();
  const { twoStep } = useTwoStep();
  // Only an account with two-step sign-in signs in with a recovery code.
  if (search.get('notice') !== RECOVERY_CODE_NOTICE || !twoStep?.enabled) return null;
  const left = twoStep.recoveryCodesLeft;
  const text =
    left === 0 ? h('recoveryUsedNone') : left === 1 ? h('recoveryUsedOne') : h('recoveryUsedMany', { count: left });
  return <SaidRegion id="recovery-said" said={{ text, tone: 'notice' }} />;
}

/**
 * Neither a passkey nor two-step sign-in: the hub suggests them, until the person dismisses the
 * suggestion, which the account keeps (every device, with or without scripts).
 */
export function SecondFactorSuggestion() {
  const h = useHubText();
  const { locale } = useI18n();
  const utils = trpc.useUtils();
  const focusNext = useFocusNext();
  const security = useAccountSecurity();
  const posted = useFormOutcome('dismissSecondFactorSuggestion');
  const [dismissedHere, setDismissedHere] = useState(false);
  const dismiss = trpc.account.dismissSecondFactorSuggestion.useMutation({
    onSuccess: () => {
      utils.account.me.setData(undefined, (me) =>
        me?.security ? { ...me, security: { ...me.security, suggestSecondFactor: false } } : me,
      );
      setDismissedHere(true);
      focusNext('#suggestion-said');
    },
  });
  const dismissed = dismissedHere || (dismiss.isIdle && posted !== null && !posted.problem);
  const failure = dismiss.error ?? (dismiss.isIdle && posted?.problem ? problemError(posted.problem) : null);
  if (dismissed) return <SaidRegion id="suggestion-said" said={{ text: h('suggestDismissed'), tone: 'success' }} />;
  if (!security?.suggestSecondFactor) return null;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!dismiss.isPending) dismiss.mutate();
  };
  return (
    <div className="notice suggestion">
      <p>{h('suggestText')}</p>
      <p className="said-actions">
        <Link to="/settings/passkeys">{h('suggestPasskey')}</Link>
        {' · '}
        <Link to="/settings/two-step">{h('suggestTwoStep')}</Link>
      </p>
      {failure && (
        <p className="suggestion-failed" role="alert">
          {describeFailure(failure, locale).message}
        </p>
      )}
      <PostForm name="dismissSecondFactorSuggestion" onSubmit={onSubmit} busy={dismiss.isPending}>
        <button type="submit" className="secondary" disabled={dismiss.isPending}>
          {dismiss.isPending ? h('suggestDismissing') : h('suggestDismiss')}
        </button>
      </PostForm>
    </div>
  );
}
