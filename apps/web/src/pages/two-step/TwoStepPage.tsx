import '../../security.css';
import { useEffect, useState } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { RecoveryCodes, type CodesMadeAfter } from '../../components/RecoveryCodes';
import { SaidRegion, type Said } from '../../components/Said';
import { LoadError, Loading } from '../../components/Status';
import { describeFailure, isUnauthenticated } from '../../failure';
import { useFocusNext } from '../../focus';
import { problemError, usePostedForm } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import type { FormOutcome } from '../../page-data';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded, useTwoStep, type SignedInUser, type TwoStepStatus } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';
import { AppSetUp } from './AppSetUp';
import { openIn, PasskeysSection, type Open } from './parts';
import { isStale } from './stale';
import { useTwoStepText } from './strings';
import { TwoStepOn } from './TwoStepOn';

export function TwoStepPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('twoStepTitle')}</PageHeading>
      <RequireAuth>{(user) => <TwoStepSettings user={user} />}</RequireAuth>
    </>
  );
}

/** Recovery codes just made, shown this once, and why they were made. */
type NewCodes = { codes: string[]; after: CodesMadeAfter };

type RecoveryCodesResult = RouterOutputs['twoStep']['regenerateRecoveryCodes'];

/**
 * What a form of this page posted without scripts came to, as the page starts from it: the
 * recovery codes it made, or what the page says (turned off; or the state was not what the page
 * showed). The set-up's secret and a refused code are the set-up's own (AppSetUp, TotpSetup).
 */
function postedStart(
  posted: FormOutcome | null,
  twoStep: TwoStepStatus | undefined,
  said: (key: 'twoStepAppTurnedOff' | 'twoStepTurnedOff') => string,
  stale: (problem: NonNullable<FormOutcome['problem']>) => string | null,
) {
  if (!posted) return {};
  if (posted.problem) {
    const text = stale(posted.problem);
    return text === null ? {} : { said: { text, tone: 'notice' } satisfies Said };
  }
  const passkeys = twoStep?.methods.includes('passkey') ?? false;
  switch (posted.form) {
    case 'enableTotp':
      return {
        newCodes: {
          codes: (posted.result as RecoveryCodesResult).recoveryCodes,
          after: passkeys ? 'app-added' : 'enabled',
        } satisfies NewCodes,
      };
    case 'regenerateRecoveryCodes':
      return {
        newCodes: {
          codes: (posted.result as RecoveryCodesResult).recoveryCodes,
          after: 'regenerated',
        } satisfies NewCodes,
      };
    case 'disableTotp':
      return {
        said: { text: said(passkeys ? 'twoStepAppTurnedOff' : 'twoStepTurnedOff'), tone: 'success' } satisfies Said,
      };
    default:
      return {};
  }
}

/**
 * The two-step state, and the one thing being done about it (set-up, codes, turning off, new codes).
 * Two-step sign-in is on with any second factor, the authenticator app or a passkey; the app has
 * its own state within it (`methods` has `totp` when it is on).
 */
function TwoStepSettings({ user }: { user: SignedInUser }) {
  const s = useTwoStepText();
  const { locale } = useI18n();
  const { twoStep, error, retry } = useTwoStep();
  const sessionEnded = useSessionEnded();
  const utils = trpc.useUtils();
  const { search } = useLocation();
  // Posted without scripts: the page starts where the app would be after the same submit.
  const posted = usePostedForm();
  const [start] = useState(() =>
    postedStart(posted, twoStep, s, (problem) => {
      const error = problemError(problem);
      return isStale(error) ? (describeFailure(error, locale).message ?? '') : null;
    }),
  );
  const [newCodes, setNewCodes] = useState<NewCodes | null>(start.newCodes ?? null);
  const [said, setSaid] = useState<Said | null>(start.said ?? null);
  // A form opened by its link (the address's ?open=), unless what it did is shown instead.
  const [open, setOpen] = useState<Open | null>(() => (posted && !posted.problem ? null : openIn(search)));
  // Where focus goes once the part that had it is gone: what the page says, or the state itself.
  const focusNext = useFocusNext();

  useEffect(() => {
    if (error && isUnauthenticated(error)) sessionEnded();
  }, [error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (error && !isUnauthenticated(error)) return <LoadError error={error} retry={retry} />;
  if (!twoStep) return <Loading />;

  /** The state changed (here or elsewhere): the page shows it as the server has it now. */
  const refresh = () => void utils.account.me.invalidate();
  const say = (text: string, tone: Said['tone']) => {
    setOpen(null);
    setSaid({ text, tone });
    focusNext('#two-step-said');
    refresh();
  };
  const codesMade = (codes: string[], after: NewCodes['after']) => {
    setOpen(null);
    setSaid(null);
    setNewCodes({ codes, after });
    refresh();
  };
  const stale = (text: string) => say(text, 'notice');

  if (newCodes)
    return (
      <RecoveryCodes
        user={user}
        {...newCodes}
        onDone={() => {
          setNewCodes(null);
          focusNext('#two-step-state');
        }}
      />
    );

  return (
    <>
      <SaidRegion id="two-step-said" said={said} />
      {twoStep.enabled ? (
        <TwoStepOn
          user={user}
          twoStep={twoStep}
          open={open}
          setOpen={setOpen}
          onChange={({ codes }) =>
            codes
              ? codesMade(codes, 'regenerated')
              : say(s(twoStep.methods.includes('passkey') ? 'twoStepAppTurnedOff' : 'twoStepTurnedOff'), 'success')
          }
          onAppEnabled={(codes) => codesMade(codes, 'app-added')}
          onStale={stale}
        />
      ) : (
        <TwoStepOff user={user} onEnabled={(codes) => codesMade(codes, 'enabled')} onStale={stale} />
      )}
    </>
  );
}

/** Off: what it is, the app's set-up, and passkeys, the other way to turn it on. */
function TwoStepOff({
  user,
  onEnabled,
  onStale,
}: {
  user: SignedInUser;
  onEnabled: (codes: string[]) => void;
  onStale: (text: string) => void;
}) {
  const s = useTwoStepText();
  return (
    <>
      <p className="intro">{s('twoStepIntro')}</p>
      <p className="two-step-state" id="two-step-state" tabIndex={-1}>
        <strong>{s('twoStepIsOff')}</strong>
      </p>
      <AppSetUp user={user} methods={[]} onEnabled={onEnabled} onStale={onStale} />
      <PasskeysSection help={s('twoStepOffPasskeys')} />
    </>
  );
}
