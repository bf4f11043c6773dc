import '../../security.css';
import {
  disableTotpSchema,
  enableTotpSchema,
  regenerateRecoveryCodesSchema,
  type SecondStepMethod,
} from '@accounts/validators';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { CodeField } from '../../components/CodeField';
import { CopyButton } from '../../components/CopyButton';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { PageHeading } from '../../components/PageHeading';
import { PasskeysLink } from '../../components/PasskeysLink';
import { postFormOf, PostForm } from '../../components/PostForm';
import { RecoveryCodes, type CodesMadeAfter } from '../../components/RecoveryCodes';
import { factorLabelKey, SecondFactorField, useFactorRecheck } from '../../components/SecondFactorField';
import { LoadError, Loading } from '../../components/Status';
import { StepLink, stepHref } from '../../components/StepLink';
import { SubmitButton } from '../../components/SubmitButton';
import { describeFailure, isFactorRecheck, isUnauthenticated } from '../../failure';
import { problemError, useFormOutcome, usePostedForm } from '../../forms/form-outcome';
import { useForm } from '../../forms/useForm';
import { useSecurityStrings } from '../../i18n/security-strings';
import type { FormOutcome } from '../../page-data';
import { RequireAuth } from '../../RequireAuth';
import { useLocation } from '../../router';
import { useSessionEnded, useTwoStep, type SignedInUser, type TwoStepStatus } from '../../session';
import { problemOf, trpc, type RouterOutputs } from '../../trpc';

export function TwoStepPage() {
  const { t } = useSecurityStrings();
  return (
    <>
      <PageHeading>{t('twoStepTitle')}</PageHeading>
      <RequireAuth>{(user) => <TwoStepSettings user={user} />}</RequireAuth>
    </>
  );
}

/** Recovery codes just made, shown this once, and why they were made. */
type NewCodes = { codes: string[]; after: CodesMadeAfter };

/** What the page says after a change, whose form is gone: done, or the state was not what it showed. */
type Said = { text: string; tone: 'success' | 'notice' };

/** The form open on the page when two-step sign-in is on: its address is `?open=off` or `?open=codes`. */
type Open = 'off' | 'codes';
const OPEN = 'open';
const openIn = (search: URLSearchParams): Open | null => {
  const open = search.get(OPEN);
  return open === 'off' || open === 'codes' ? open : null;
};

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
  const { locale, s } = useSecurityStrings();
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
  const [focusTo, setFocusTo] = useState<'said' | 'state' | null>(null);
  useEffect(() => {
    if (focusTo === null) return;
    document.getElementById(focusTo === 'said' ? 'two-step-said' : 'two-step-state')?.focus();
    setFocusTo(null);
  }, [focusTo]);

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
    setFocusTo('said');
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
          setFocusTo('state');
        }}
      />
    );

  return (
    <>
      <div role="status" id="two-step-said" className={said?.tone} tabIndex={-1}>
        {said && <p>{said.text}</p>}
      </div>
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

/** A refusal that says the page shows an old state (the app or two-step sign-in was turned on or off elsewhere). */
const isStale = (error: unknown) => {
  const code = problemOf(error)?.code;
  return code === 'two_step_on' || code === 'two_step_off' || code === 'totp_off';
};

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
  const { s } = useSecurityStrings();
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

/** The way to the passkeys page from here, with how many the account has. */
function PasskeysSection({ help }: { help: string }) {
  const { t } = useSecurityStrings();
  return (
    <section className="two-step-action" aria-labelledby="two-step-passkeys-title">
      <h2 id="two-step-passkeys-title">{t('passkeysTitle')}</h2>
      <p>{help}</p>
      <p>
        <PasskeysLink />
      </p>
    </section>
  );
}

/**
 * The authenticator app's set-up (QR code, key, then a code and the password to turn it on; beside
 * passkeys, `methods` non-empty, a second factor when the server asks for one).
 */
function AppSetUp({
  user,
  methods,
  onEnabled,
  onStale,
}: {
  user: SignedInUser;
  methods: readonly SecondStepMethod[];
  onEnabled: (codes: string[]) => void;
  onStale: (text: string) => void;
}) {
  const { locale, s } = useSecurityStrings();
  const setup = trpc.twoStep.setupTotp.useMutation();
  const sessionEnded = useSessionEnded();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // The button that started it is gone: the set-up's first step takes focus.
  useEffect(() => {
    if (setup.data) headingRef.current?.focus();
  }, [setup.data]);
  // Posted without scripts: the set-up the server made (its QR code and key), or, after a wrong
  // code, the same set-up again (the page's query, answered with the page), or its refusal.
  const postedSetup = useFormOutcome('setupTotp');
  const refusedCode = useFormOutcome('enableTotp')?.problem !== undefined;
  const pending = trpc.twoStep.pendingTotp.useQuery(undefined, { enabled: false });
  const posted = setup.isIdle
    ? postedSetup?.problem
      ? { error: problemError(postedSetup.problem) }
      : {
          data:
            (postedSetup?.result as RouterOutputs['twoStep']['setupTotp'] | undefined) ??
            (refusedCode ? pending.data : null),
        }
    : {};
  const data = setup.data ?? posted.data ?? null;
  const error = setup.error ?? posted.error ?? null;

  const start = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (setup.isPending) return;
    setup.mutate(undefined, {
      onError: (error) => {
        if (isUnauthenticated(error)) sessionEnded();
        else if (isStale(error)) onStale(describeFailure(error, locale).message ?? '');
      },
    });
  };
  const failure = error && !isUnauthenticated(error) && !isStale(error) ? error : null;

  return (
    <>
      {failure && (
        <div className="alert" role="alert">
          <p>{describeFailure(failure, locale).message}</p>
        </div>
      )}
      {data ? (
        <TotpSetup
          user={user}
          setup={data}
          methods={methods}
          headingRef={headingRef}
          onEnabled={onEnabled}
          onStale={onStale}
        />
      ) : (
        <PostForm name="setupTotp" onSubmit={start} busy={setup.isPending}>
          <SubmitButton busy={setup.isPending} label={s('twoStepSetUp')} busyLabel={s('twoStepSettingUp')} />
        </PostForm>
      )}
    </>
  );
}

/** The secret in groups of four, as authenticator apps show keys and people type them. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** The app's code and the password; beside passkeys, a recovery code when the server asks for one. */
const ENABLE_ASKED = enableTotpSchema.required({ recovery_code: true });
const ENABLE = enableTotpSchema.omit({ recovery_code: true });

function TotpSetup({
  user,
  setup,
  methods,
  headingRef,
  onEnabled,
  onStale,
}: {
  user: SignedInUser;
  setup: RouterOutputs['twoStep']['setupTotp'];
  methods: readonly SecondStepMethod[];
  headingRef: React.RefObject<HTMLHeadingElement | null>;
  onEnabled: (codes: string[]) => void;
  onStale: (text: string) => void;
}) {
  const { s, t } = useSecurityStrings();
  const enable = trpc.twoStep.enableTotp.useMutation();
  const guarded = useStaleAware(onStale);
  const factor = useFactorRecheck('enableTotp', 'recovery_code');
  const form = useForm({
    name: 'enableTotp',
    initial: { code: '', current_password: '', recovery_code: '' },
    schema: factor.asked ? ENABLE_ASKED : ENABLE,
    pageShows: (error) => isStale(error) || isFactorRecheck(error, 'recovery_code'),
    whenEmpty: { code: 'emptyCode', current_password: 'emptyCurrentPassword', recovery_code: 'emptyRecoveryCode' },
    submit: async ({ code, current_password, recovery_code }) => {
      let result;
      try {
        result = await guarded(() =>
          enable.mutateAsync({ code, current_password, ...(factor.asked ? { recovery_code } : {}) }),
        );
      } catch (error) {
        if (!factor.askedBy(error)) throw error;
        // Asked, not refused: what was typed stays, the recovery code is to come.
        form.reset({ code, current_password });
        return;
      }
      if (result) onEnabled(result.recoveryCodes);
    },
  });
  const labels = {
    code: s('fieldCode'),
    current_password: t('fieldCurrentPassword'),
    recovery_code: s(factorLabelKey(methods, 'recovery_code')),
  };
  return (
    <section className="totp-setup" aria-labelledby="totp-scan">
      <h2 id="totp-scan" tabIndex={-1} ref={headingRef}>
        {s('twoStepScanTitle')}
      </h2>
      <p>{s('twoStepScanHelp')}</p>
      <img className="totp-qr" src={setup.qrCode} alt={s('twoStepQrAlt')} width={200} height={200} />
      <p className="totp-open">
        <a href={setup.uri}>{s('twoStepOpenApp')}</a>
      </p>
      <p id="totp-key-help">{s('twoStepKeyHelp')}</p>
      <p className="totp-key">
        <code>{grouped(setup.secret)}</code>{' '}
        <CopyButton text={setup.secret} label={s('twoStepCopyKey')} copied={s('copied')} failed={s('copyFailed')} />
      </p>
      <h2>{s('twoStepConfirmTitle')}</h2>
      <p id="totp-confirm-help">{s('twoStepConfirmHelp')}</p>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <CodeField form={form} kind="app" label={labels.code} describedBy={['totp-confirm-help']} />
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SecondFactorField form={form} recheck={factor} methods={methods} />
        <SubmitButton busy={form.submitting} label={s('twoStepTurnOn')} busyLabel={s('twoStepTurningOn')} />
      </PostForm>
    </section>
  );
}

/** What turning off or making new codes did: new codes, or none (it is off). */
type Change = { codes: string[] | null };

/**
 * On: through what (the app, passkeys), how many recovery codes are left, and (one at a time,
 * after the password) new codes, and turning the app off or setting it up beside passkeys.
 */
function TwoStepOn({
  user,
  twoStep,
  open,
  setOpen,
  onChange,
  onAppEnabled,
  onStale,
}: {
  user: SignedInUser;
  twoStep: TwoStepStatus;
  /** The form open (without scripts, the address's `?open=`). */
  open: Open | null;
  setOpen: (open: Open | null) => void;
  onChange: (change: Change) => void;
  onAppEnabled: (codes: string[]) => void;
  onStale: (text: string) => void;
}) {
  const { s } = useSecurityStrings();
  const { path } = useLocation();
  // The link a cancelled form gives focus back to, once it is shown again.
  const [returnTo, setReturnTo] = useState<Open | null>(null);
  useEffect(() => {
    if (returnTo === null) return;
    document.querySelector<HTMLElement>(`[data-opens="${returnTo}"]`)?.focus();
    setReturnTo(null);
  }, [returnTo]);
  const cancel = () => {
    setReturnTo(open);
    setOpen(null);
  };
  const left = twoStep.recoveryCodesLeft;
  const appOn = twoStep.methods.includes('totp');
  const passkeys = twoStep.methods.includes('passkey');
  return (
    <>
      <p className="two-step-state" id="two-step-state" tabIndex={-1}>
        <strong>{s(appOn ? 'twoStepIsOn' : 'twoStepIsOnPasskeys')}</strong> {s('twoStepCodesLeft', { count: left })}
      </p>
      {left <= 3 && <p className="notice">{s('twoStepCodesLow')}</p>}
      <section className="two-step-action" aria-labelledby="new-codes-title">
        <h2 id="new-codes-title">{s('newCodesTitle')}</h2>
        <p>{s('newCodesHelp')}</p>
        {open === 'codes' ? (
          <NewCodesForm user={user} methods={twoStep.methods} onDone={onChange} onStale={onStale} onCancel={cancel} />
        ) : (
          <StepLink
            href={stepHref(path, OPEN, 'codes')}
            className="secondary button-link"
            data-opens="codes"
            onOpen={() => setOpen('codes')}
          >
            {s('newCodesSubmit')}
          </StepLink>
        )}
      </section>
      {appOn ? (
        // With passkeys, turning the app off leaves two-step sign-in on.
        <section className="two-step-action" aria-labelledby="two-step-off-title">
          <h2 id="two-step-off-title">{s(passkeys ? 'twoStepAppOffTitle' : 'twoStepOffTitle')}</h2>
          <p>{s(passkeys ? 'twoStepAppOffHelp' : 'twoStepOffHelp')}</p>
          {open === 'off' ? (
            <TurnOffForm user={user} onDone={onChange} onStale={onStale} onCancel={cancel} />
          ) : (
            <StepLink
              href={stepHref(path, OPEN, 'off')}
              className="secondary button-link"
              data-opens="off"
              onOpen={() => setOpen('off')}
            >
              {s('twoStepTurnOff')}
            </StepLink>
          )}
        </section>
      ) : (
        <section className="two-step-action" aria-labelledby="two-step-app-title">
          <h2 id="two-step-app-title">{s('twoStepAppTitle')}</h2>
          <p>{s('twoStepAppIsOff')}</p>
          <AppSetUp user={user} methods={twoStep.methods} onEnabled={onAppEnabled} onStale={onStale} />
        </section>
      )}
      <PasskeysSection help={s('twoStepPasskeysHelp')} />
    </>
  );
}

interface ActionFormProps {
  user: SignedInUser;
  onDone: (change: Change) => void;
  onStale: (text: string) => void;
  onCancel: () => void;
}

/** Sends a change; a refusal that says the page is out of date goes to the page, the rest to the form. */
function useStaleAware(onStale: (text: string) => void) {
  const { locale } = useSecurityStrings();
  return async <T,>(send: () => Promise<T>): Promise<T | null> => {
    try {
      return await send();
    } catch (error) {
      if (!isStale(error)) throw error;
      onStale(describeFailure(error, locale).message ?? '');
      return null;
    }
  };
}

/** Cancel of an open form: the page without it (its plain address), or with scripts, the form closed in place. */
function CancelLink({ busy, onCancel }: { busy: boolean; onCancel: () => void }) {
  const { s } = useSecurityStrings();
  const { path } = useLocation();
  return (
    <StepLink
      href={path}
      className="secondary button-link"
      onOpen={() => {
        if (!busy) onCancel();
      }}
    >
      {s('twoStepCancel')}
    </StepLink>
  );
}

function TurnOffForm({ user, onDone, onStale, onCancel }: ActionFormProps) {
  const { s, t } = useSecurityStrings();
  const disable = trpc.twoStep.disableTotp.useMutation();
  const guarded = useStaleAware(onStale);
  const form = useForm({
    name: 'disableTotp',
    initial: { current_password: '', code: '' },
    schema: disableTotpSchema,
    pageShows: isStale,
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async (values) => {
      if (await guarded(() => disable.mutateAsync(values))) onDone({ codes: null });
    },
  });
  const labels = { current_password: t('fieldCurrentPassword'), code: s('fieldAnyCode') };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <CodeField form={form} kind="either" label={labels.code} />
        <SubmitButton busy={form.submitting} label={s('twoStepTurnOff')} busyLabel={s('twoStepTurningOff')} />{' '}
        <CancelLink busy={form.submitting} onCancel={onCancel} />
      </PostForm>
    </>
  );
}

/** The password; and a code when the server asks for a second factor. */
const NEW_CODES_ASKED = regenerateRecoveryCodesSchema.required({ code: true });
const NEW_CODES = regenerateRecoveryCodesSchema.omit({ code: true });

function NewCodesForm({
  user,
  methods,
  onDone,
  onStale,
  onCancel,
}: ActionFormProps & { methods: readonly SecondStepMethod[] }) {
  const { s, t } = useSecurityStrings();
  const regenerate = trpc.twoStep.regenerateRecoveryCodes.useMutation();
  const guarded = useStaleAware(onStale);
  const factor = useFactorRecheck('regenerateRecoveryCodes');
  const form = useForm({
    name: 'regenerateRecoveryCodes',
    initial: { current_password: '', code: '' },
    schema: factor.asked ? NEW_CODES_ASKED : NEW_CODES,
    pageShows: (error) => isStale(error) || isFactorRecheck(error),
    whenEmpty: { current_password: 'emptyCurrentPassword', code: 'emptySecondStepCode' },
    submit: async ({ current_password, code }) => {
      let result;
      try {
        result = await guarded(() => regenerate.mutateAsync({ current_password, ...(factor.asked ? { code } : {}) }));
      } catch (error) {
        if (!factor.askedBy(error)) throw error;
        // Asked, not refused: the password typed stays, the code is to come.
        form.reset({ current_password });
        return;
      }
      if (result) onDone({ codes: result.recoveryCodes });
    },
  });
  const labels = { current_password: t('fieldCurrentPassword'), code: s(factorLabelKey(methods, 'code')) };
  useEffect(() => document.getElementById('current_password')?.focus(), []);
  return (
    <>
      <ErrorSummary report={form.report} labels={labels} />
      <PostForm {...postFormOf(form)}>
        <CurrentPasswordField form={form} label={labels.current_password} email={user.email} />
        <SecondFactorField form={form} recheck={factor} methods={methods} />
        <SubmitButton busy={form.submitting} label={s('newCodesSubmit')} busyLabel={s('newCodesBusy')} />{' '}
        <CancelLink busy={form.submitting} onCancel={onCancel} />
      </PostForm>
    </>
  );
}
