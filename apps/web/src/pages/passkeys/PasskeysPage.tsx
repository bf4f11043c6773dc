import '../../security.css';
import { useEffect, useState } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { RecoveryCodes } from '../../components/RecoveryCodes';
import { SaidRegion, type Said } from '../../components/Said';
import { LoadError, Loading } from '../../components/Status';
import { stepIn } from '../../components/StepLink';
import { describeFailure, isUnauthenticated } from '../../failure';
import { useFocusNext } from '../../focus';
import { problemError, usePostedForm } from '../../forms/form-outcome';
import { useHydrated } from '../../hydrated';
import { useI18n } from '../../i18n';
import type { FormOutcome } from '../../page-data';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded, useTwoStep, type SignedInUser, type TwoStepStatus } from '../../session';
import { trpc } from '../../trpc';
import { AddPasskey } from './AddPasskey';
import { isGone, type Passkey } from './passkey';
import { PasskeyItem, type PasskeyAction } from './PasskeyItem';
import { usePasskeysText } from './strings';

export function PasskeysPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeading>{t('passkeysTitle')}</PageHeading>
      <RequireAuth>{(user) => <Passkeys user={user} />}</RequireAuth>
    </>
  );
}

/**
 * The form open on the page, one at a time: renaming or removing one passkey (else adding one is
 * offered). Its address is `?rename=<id>` or `?remove=<id>`: the links that open it.
 */
type Open = { action: PasskeyAction; id: string } | null;
const ACTIONS = ['rename', 'remove'] as const;
const openIn = (search: URLSearchParams): Open => {
  const step = stepIn(search, ACTIONS);
  return step && { action: step.param, id: step.value };
};

/**
 * What renaming or removing posted without scripts came to, as the page says it (its form gone):
 * done (the name posted along), or the passkey was gone already. Null: nothing to say (another
 * refusal is the form's to show).
 */
function postedSaid(
  posted: FormOutcome | null,
  twoStep: TwoStepStatus | undefined,
  s: ReturnType<typeof usePasskeysText>,
  locale: ReturnType<typeof useI18n>['locale'],
): Said | null {
  if (posted?.form !== 'renamePasskey' && posted?.form !== 'removePasskey') return null;
  if (posted.problem) {
    const error = problemError(posted.problem);
    return isGone(error) ? { text: describeFailure(error, locale).message ?? '', tone: 'notice' } : null;
  }
  const name = (posted.values.name ?? '').trim();
  if (posted.form === 'renamePasskey') return { text: s('passkeyRenamed', { name }), tone: 'success' };
  // Two-step sign-in off now: the passkey removed was its only second step.
  const last = twoStep !== undefined && !twoStep.enabled;
  return { text: s(last ? 'passkeyRemovedLast' : 'passkeyRemoved', { name }), tone: 'success' };
}

/**
 * The account's passkeys, each with Rename and Remove (after the password), and the way to add
 * one. The account's first second factor comes with recovery codes, shown this once as on the
 * two-step page.
 */
function Passkeys({ user }: { user: SignedInUser }) {
  const s = usePasskeysText();
  const { locale } = useI18n();
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const list = trpc.passkeys.list.useQuery(undefined);
  const { twoStep } = useTwoStep();
  const remove = trpc.passkeys.remove.useMutation();
  const { search } = useLocation();
  const hydrated = useHydrated();
  // Posted without scripts: the page says what the change did (the form closed), or the form
  // opened by its link (the address's ?rename= or ?remove=) shows what was wrong.
  const posted = usePostedForm();
  const [said, setSaid] = useState<Said | null>(() => postedSaid(posted, twoStep, s, locale));
  const [open, setOpen] = useState<Open>(() => (said ? null : openIn(search)));
  const [newCodes, setNewCodes] = useState<string[] | null>(null);
  // Where focus goes once the part that had it is gone: what the page says, or the link that
  // opened a cancelled form (its data-opens).
  const focusNext = useFocusNext();

  // This device was signed out elsewhere: say so on the sign-in page.
  useEffect(() => {
    if (list.error && isUnauthenticated(list.error)) sessionEnded();
  }, [list.error]); // eslint-disable-line react-hooks/exhaustive-deps

  if (list.error && !isUnauthenticated(list.error))
    return <LoadError error={list.error} retry={() => void list.refetch()} />;
  if (!list.data) return <Loading />;

  /** The passkeys, and with them the two-step state, as the server has them now. */
  const refresh = () => {
    void utils.passkeys.list.invalidate();
    void utils.account.me.invalidate();
  };
  const say = (text: string, tone: Said['tone'] = 'success') => {
    setOpen(null);
    setSaid({ text, tone });
    focusNext('#passkeys-said');
    refresh();
  };
  const cancel = () => {
    if (open) focusNext(`[data-opens="${open.action}-${open.id}"]`);
    setOpen(null);
  };
  /** A passkey removed or renamed elsewhere meanwhile: the page says so and shows the list as it is. */
  const gone = (error: unknown) => say(describeFailure(error, locale).message ?? '', 'notice');

  if (newCodes)
    return (
      <RecoveryCodes
        user={user}
        codes={newCodes}
        after="passkey"
        onDone={() => {
          setNewCodes(null);
          focusNext('#passkeys-said');
        }}
      />
    );

  const passkeys = list.data.passkeys;
  // Removing the only passkey of an account without the app turns two-step sign-in off.
  const onlyFactor = passkeys.length === 1 && twoStep !== undefined && !twoStep.methods.includes('totp');

  const onRemove = async (passkey: Passkey, current_password: string, code?: string) => {
    try {
      await remove.mutateAsync({ passkey_id: passkey.id, current_password, ...(code === undefined ? {} : { code }) });
    } catch (error) {
      if (!isGone(error)) throw error;
      gone(error);
      return;
    }
    say(s(onlyFactor ? 'passkeyRemovedLast' : 'passkeyRemoved', { name: passkey.name }));
  };

  return (
    <>
      <p className="intro">{s('passkeysIntro')}</p>
      <SaidRegion id="passkeys-said" said={said} />
      {passkeys.length === 0 ? (
        <p className="passkeys-none">{s('passkeysNone')}</p>
      ) : (
        <ul className="passkeys">
          {passkeys.map((passkey) => (
            <PasskeyItem
              key={passkey.id}
              passkey={passkey}
              opened={open?.id === passkey.id ? open.action : null}
              user={user}
              methods={twoStep?.methods ?? []}
              onlyFactor={onlyFactor}
              onOpen={(action) => setOpen({ action, id: passkey.id })}
              onRenamed={(to) => say(s('passkeyRenamed', { name: to }))}
              onRemove={(password, code) => onRemove(passkey, password, code)}
              onGone={gone}
              onCancel={cancel}
            />
          ))}
        </ul>
      )}
      {/*
        One form at a time: adding waits while a passkey is being renamed or removed. Making a
        passkey is the browser's WebAuthn prompt, a script API: without scripts it is not offered.
      */}
      {/* Without scripts (and until the app runs): why there is no way to add one here. */}
      {open === null && !hydrated && <p className="passkeys-needs-scripts">{s('passkeyNeedsScripts')}</p>}
      {open === null && hydrated && (
        <AddPasskey
          user={user}
          methods={twoStep?.methods ?? []}
          onAdded={(passkey, codes) => {
            const text = s('passkeyAdded', { name: passkey.name });
            if (!codes) return say(text);
            // Said once the codes have been seen (Done comes back here).
            setSaid({ text, tone: 'success' });
            setNewCodes(codes);
            refresh();
          }}
        />
      )}
    </>
  );
}
