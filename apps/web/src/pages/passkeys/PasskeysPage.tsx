import '../../security.css';
import {
  changeNameSchema,
  disableTotpSchema,
  revokeOtherSessionsSchema,
  type SecondStepMethod,
} from '@accounts/validators';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { useEffect, useMemo, useState } from 'react';
import { ConfirmOwner } from '../../components/ConfirmOwner';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { Field } from '../../components/Field';
import { PageHeading } from '../../components/PageHeading';
import { postFormOf, PostForm } from '../../components/PostForm';
import { RecoveryCodes } from '../../components/RecoveryCodes';
import { factorLabelKey, SecondFactorField, useFactorRecheck } from '../../components/SecondFactorField';
import { LoadError, Loading } from '../../components/Status';
import { StepLink, stepHref } from '../../components/StepLink';
import { SubmitButton } from '../../components/SubmitButton';
import { describeFailure, isPasswordRecheck, isUnauthenticated, WordedError } from '../../failure';
import { problemError, usePostedForm } from '../../forms/form-outcome';
import { useForm, type FormSchema } from '../../forms/useForm';
import { useHydrated } from '../../hydrated';
import { createTranslator, useTranslator } from '../../i18n';
import { PROMPT_STRINGS } from '../../i18n/prompt-strings';
import { useSecurityStrings } from '../../i18n/security-strings';
import { TimeAgo } from '../../relative-time';
import type { FormOutcome } from '../../page-data';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded, useTwoStep, type SignedInUser, type TwoStepStatus } from '../../session';
import { problemOf, trpc, type RouterOutputs } from '../../trpc';
import { creationOptions, prompt, PromptDismissed, PromptFailed, registrationAnswer } from '../../webauthn';

/** What a passkey prompt ended with (the words that load with the passkey code). */
const translatePrompt = createTranslator(PROMPT_STRINGS);

type Passkey = RouterOutputs['passkeys']['list']['passkeys'][number];

export function PasskeysPage() {
  const { t } = useSecurityStrings();
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
type Open = { action: 'rename' | 'remove'; id: string } | null;
const ACTIONS = ['rename', 'remove'] as const;
const openIn = (search: URLSearchParams): Open => {
  for (const action of ACTIONS) {
    const id = search.get(action);
    if (id) return { action, id };
  }
  return null;
};

/** What the page says after a change, whose form is gone: done, or the passkey was no longer there. */
type Said = { text: string; tone: 'success' | 'notice' };

/** A refusal that says the passkey is gone (removed or renamed elsewhere meanwhile): the page's to say. */
const isGone = (error: unknown) => problemOf(error)?.code === 'not_found';

/**
 * What renaming or removing posted without scripts came to, as the page says it (its form gone):
 * done (the name posted along), or the passkey was gone already. Null: nothing to say (another
 * refusal is the form's to show).
 */
function postedSaid(
  posted: FormOutcome | null,
  twoStep: TwoStepStatus | undefined,
  s: ReturnType<typeof useSecurityStrings>['s'],
  locale: ReturnType<typeof useSecurityStrings>['locale'],
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
 * The account's passkeys (name, kind, synced, added and last used), each with Rename and Remove
 * (after the password), and the way to add one. The account's first second factor comes with
 * recovery codes, shown this once as on the two-step page.
 */
function Passkeys({ user }: { user: SignedInUser }) {
  const { locale, s } = useSecurityStrings();
  const utils = trpc.useUtils();
  const sessionEnded = useSessionEnded();
  const list = trpc.passkeys.list.useQuery(undefined);
  const { twoStep } = useTwoStep();
  const remove = trpc.passkeys.remove.useMutation();
  const { path, search } = useLocation();
  const hydrated = useHydrated();
  // Posted without scripts: the page says what the change did (the form closed), or the form
  // opened by its link (the address's ?rename= or ?remove=) shows what was wrong.
  const posted = usePostedForm();
  const [said, setSaid] = useState<Said | null>(() => postedSaid(posted, twoStep, s, locale));
  const [open, setOpen] = useState<Open>(() => (said ? null : openIn(search)));
  const [newCodes, setNewCodes] = useState<string[] | null>(null);
  // Where focus goes once the part that had it is gone: what the page says, or the button that
  // opened a cancelled form (its data-opens).
  const [focusTo, setFocusTo] = useState<string | null>(null);
  useEffect(() => {
    if (focusTo === null) return;
    const target =
      focusTo === 'said'
        ? document.getElementById('passkeys-said')
        : document.querySelector<HTMLElement>(`[data-opens="${focusTo}"]`);
    target?.focus();
    setFocusTo(null);
  }, [focusTo]);

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
    setFocusTo('said');
    refresh();
  };
  const cancel = () => {
    if (open) setFocusTo(`${open.action}-${open.id}`);
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
          setFocusTo('said');
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
      <div role="status" id="passkeys-said" className={said?.tone} tabIndex={-1}>
        {said && <p>{said.text}</p>}
      </div>
      {passkeys.length === 0 ? (
        <p className="passkeys-none">{s('passkeysNone')}</p>
      ) : (
        <ul className="passkeys">
          {passkeys.map((passkey) => {
            const { id, name } = passkey;
            const opened = open?.id === id ? open.action : null;
            return (
              <li key={id} className="passkey">
                <h2 className="passkey-name">
                  {name}
                  {passkey.synced && <span className="badge">{s('passkeySynced')}</span>}
                </h2>
                {passkey.kind && <p className="passkey-kind">{passkey.kind}</p>}
                <p className="passkey-times">
                  {s('passkeyCreated', { time: '' })}
                  <TimeAgo at={passkey.createdAt} locale={locale} />
                  {' · '}
                  {passkey.lastUsedAt ? (
                    <>
                      {s('passkeyLastUsed', { time: '' })}
                      <TimeAgo at={passkey.lastUsedAt} locale={locale} />
                    </>
                  ) : (
                    s('passkeyNeverUsed')
                  )}
                </p>
                {opened === 'rename' ? (
                  <RenameForm
                    passkey={passkey}
                    cancelHref={path}
                    onRenamed={(to) => say(s('passkeyRenamed', { name: to }))}
                    onGone={gone}
                    onCancel={cancel}
                  />
                ) : opened === 'remove' ? (
                  <ConfirmOwner
                    name="removePasskey"
                    // The name goes along for what the page says afterwards (the passkey is gone by then).
                    hidden={{ passkey_id: id, name }}
                    cancelHref={path}
                    user={user}
                    prompt={s('passkeyRemoveConfirm', { name })}
                    label={s('passkeyRemoveLabel', { name })}
                    busyLabel={s('passkeyRemoving')}
                    cancelLabel={s('passkeyCancel')}
                    // Removing the last second factor asks for one (when this session proved none lately).
                    methods={twoStep?.methods ?? []}
                    onConfirm={(password, code) => onRemove(passkey, password, code)}
                    onCancel={cancel}
                  >
                    {onlyFactor && <p className="notice">{s('passkeyRemoveLast')}</p>}
                  </ConfirmOwner>
                ) : (
                  <p className="passkey-actions">
                    <StepLink
                      href={stepHref(path, 'rename', id)}
                      className="secondary button-link"
                      aria-label={s('passkeyRenameLabel', { name })}
                      data-opens={`rename-${id}`}
                      onOpen={() => setOpen({ action: 'rename', id })}
                    >
                      {s('passkeyRename')}
                    </StepLink>{' '}
                    <StepLink
                      href={stepHref(path, 'remove', id)}
                      className="secondary button-link"
                      aria-label={s('passkeyRemoveLabel', { name })}
                      data-opens={`remove-${id}`}
                      onOpen={() => setOpen({ action: 'remove', id })}
                    >
                      {s('passkeyRemove')}
                    </StepLink>
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {/*
        One form at a time: adding waits while a passkey is being renamed or removed. Making a
        passkey is the browser's WebAuthn prompt, a script API: without scripts it is not offered.
      */}
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

/** The rename form in place of the passkey's buttons; the name field takes focus. */
function RenameForm({
  passkey,
  cancelHref,
  onRenamed,
  onGone,
  onCancel,
}: {
  passkey: Passkey;
  /** The page without the form: where Cancel leads without scripts. */
  cancelHref: string;
  onRenamed: (name: string) => void;
  onGone: (error: unknown) => void;
  onCancel: () => void;
}) {
  const { s } = useSecurityStrings();
  const rename = trpc.passkeys.rename.useMutation();
  const form = useForm({
    name: 'renamePasskey',
    initial: { name: passkey.name },
    schema: RENAME_SCHEMA,
    pageShows: isGone,
    whenEmpty: { name: 'emptyPasskeyName' },
    submit: async ({ name }) => {
      try {
        await rename.mutateAsync({ passkey_id: passkey.id, name });
      } catch (error) {
        if (!isGone(error)) throw error;
        onGone(error);
        return;
      }
      onRenamed(name.trim());
    },
  });
  const labels = { name: s('passkeyNameField') };
  useEffect(() => document.getElementById('name')?.focus(), []);
  return (
    <div className="passkey-rename">
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)} hidden={{ passkey_id: passkey.id }}>
        <Field form={form} name="name" label={labels.name} type="text" autoComplete="off" spellCheck={false} />
        <SubmitButton busy={form.submitting} label={s('passkeySaveName')} busyLabel={s('passkeySavingName')} />{' '}
        <StepLink
          href={cancelHref}
          className="secondary button-link"
          onOpen={() => {
            if (!form.submitting) onCancel();
          }}
        >
          {s('passkeyCancel')}
        </StepLink>
      </PostForm>
    </div>
  );
}

// The rules of the shared schemas: a passkey's name follows a person's name (as renamePasskeySchema
// does), the current password is the one every form asks for, a second-step code the one turning
// the app off takes. The passkey schemas themselves are not imported: their WebAuthn shapes would
// add zod parts to every page's vendor chunk.
const RENAME_SCHEMA = changeNameSchema;
const PASSWORD_ONLY = revokeOtherSessionsSchema;
const CODE_ONLY = disableTotpSchema.pick({ code: true });
const NOTHING_ASKED = PASSWORD_ONLY.pick({});

/**
 * The add form's rule: an optional name (left empty, the server names it), and the password and
 * the second-step code when asked for.
 */
const addSchema = (withPassword: boolean, withCode: boolean): FormSchema => {
  const asked = NOTHING_ASKED.extend({
    ...(withPassword ? PASSWORD_ONLY.shape : {}),
    ...(withCode ? CODE_ONLY.shape : {}),
  });
  const named = asked.extend(RENAME_SCHEMA.shape);
  return { safeParse: (values) => ((values as { name: string }).name.trim() ? named : asked).safeParse(values) };
};

/**
 * Adding a passkey: its options (the password first, when the server asks for it again), the
 * browser's prompt to make one, then the server's check. A dismissed prompt is a calm note; a
 * browser that cannot make passkeys is told so instead of the form.
 */
function AddPasskey({
  user,
  methods,
  onAdded,
}: {
  user: SignedInUser;
  /** The account's ways of the second step: with two-step sign-in on, adding a passkey may ask for one. */
  methods: readonly SecondStepMethod[];
  onAdded: (passkey: Passkey, recoveryCodes: string[] | undefined) => void;
}) {
  const { s, t } = useSecurityStrings();
  const utils = trpc.useUtils();
  const add = trpc.passkeys.add.useMutation();
  const p = useTranslator(translatePrompt);
  const [recheck, setRecheck] = useState(false);
  const factor = useFactorRecheck(null);
  const [note, setNote] = useState<string | null>(null);
  const schema = useMemo(() => addSchema(recheck, factor.asked), [recheck, factor.asked]);
  // Only the app shows this form (no `_form`: the browser never posts it).
  const form = useForm({
    name: null,
    initial: { name: '', current_password: '', code: '' },
    schema,
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async ({ name, current_password, code }) => {
      setNote(null);
      let options;
      try {
        options = await utils.client.passkeys.registrationOptions.mutate({
          ...(recheck ? { current_password } : {}),
          ...(factor.asked ? { code } : {}),
        });
      } catch (error) {
        // Asked, not refused: the fields asked for appear as new (nothing marked wrong yet), the rest kept.
        const password = !recheck && isPasswordRecheck(error);
        if (!factor.askedBy(error) && !password) throw error;
        form.reset({ name, ...(recheck ? { current_password } : {}) });
        if (password) setRecheck(true);
        return;
      }
      // The password and the factor are proved for the next few minutes: a second try needs neither.
      setRecheck(false);
      factor.done();
      let response;
      try {
        response = await prompt(() => startRegistration({ optionsJSON: creationOptions(options) }));
      } catch (error) {
        if (error instanceof PromptFailed)
          // The options exclude the account's passkeys: an authenticator that holds one says so.
          throw new WordedError(
            error.cause.name === 'InvalidStateError' ? s('passkeyAlreadyOnDevice') : p('passkeyDeviceFailed'),
          );
        if (!(error instanceof PromptDismissed)) throw error;
        setNote(s('passkeyAddCancelled'));
        return;
      }
      const added = await add.mutateAsync({ response: registrationAnswer(response), ...(name.trim() ? { name } : {}) });
      form.reset();
      onAdded(added.passkey, added.recoveryCodes);
    },
  });
  // Asked for, the password field takes focus; what it is for is said with it.
  useEffect(() => {
    if (recheck) document.getElementById('current_password')?.focus();
  }, [recheck]);

  const labels = {
    name: s('passkeyAddName'),
    current_password: t('fieldCurrentPassword'),
    code: s(factorLabelKey(methods, 'code')),
  };
  return (
    <section className="passkey-add" aria-labelledby="passkey-add-title">
      <h2 id="passkey-add-title">{s('passkeyAddTitle')}</h2>
      {browserSupportsWebAuthn() ? (
        <>
          <p>{s('passkeyAddHelp')}</p>
          <ErrorSummary report={form.report} labels={labels} />
          <form method="post" noValidate onSubmit={(event) => void form.onSubmit(event)} aria-busy={form.submitting}>
            <Field
              form={form}
              name="name"
              label={labels.name}
              type="text"
              autoComplete="off"
              spellCheck={false}
              required={false}
              describedBy={['passkey-name-help']}
            >
              <p className="field-hint" id="passkey-name-help">
                {s('passkeyAddNameHelp')}
              </p>
            </Field>
            {recheck && (
              <>
                <p className="notice" id="passkey-recheck">
                  {s('passkeyRecheck')}
                </p>
                <CurrentPasswordField
                  form={form}
                  label={labels.current_password}
                  email={user.email}
                  describedBy={['passkey-recheck']}
                />
              </>
            )}
            <SecondFactorField form={form} recheck={factor} methods={methods} />
            <SubmitButton busy={form.submitting} label={s('passkeyAdd')} busyLabel={s('passkeyAdding')} />
          </form>
          <p className="passkey-note" role="status">
            {note}
          </p>
        </>
      ) : (
        <p className="notice">{s('passkeyAddUnsupported')}</p>
      )}
    </section>
  );
}
