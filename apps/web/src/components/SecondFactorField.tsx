import type { SecondStepMethod } from '@accounts/validators';
import { useEffect, useState } from 'react';
import { useFormOutcome } from '../forms/form-outcome';
import type { Form } from '../forms/useForm';
import { useHydrated } from '../hydrated';
import { useSecurityText } from '../i18n/security-strings';
import type { PageFormName } from '../page-forms';
import { problemOf, trpc } from '../trpc';
import { usePasskeyPrompt } from '../usePasskeyPrompt';
import { assertionAnswer, prompt, PromptFailed } from '../webauthn';
import { CodeField, useCodeLabel, type CodeKind } from './CodeField';

/**
 * The server asks for a second factor on `field` (this session has not proved one for 5 minutes,
 * and the change binds or removes one): not a refusal, the code field is to appear.
 */
export const isFactorRecheck = (error: unknown, field = 'code') =>
  problemOf(error)?.errors?.some((e) => e.field === field && e.code === 'second_factor_recheck_required') ?? false;

/**
 * Whether the server asked form `name` for a second factor on `field` (binding or removing one,
 * in a session that has not proved one for five minutes): after a submit of the app, or when the
 * form was posted without scripts. A passkey confirmed in place answers it instead; the form then
 * goes without a code.
 */
export function useFactorRecheck<N extends string = 'code'>(name: PageFormName | null, field = 'code' as N) {
  const posted = useFormOutcome(name);
  const [asked, setAsked] = useState(() => posted?.problem?.errors?.some((e) => e.field === field) ?? false);
  const [confirmed, setConfirmed] = useState(false);
  return {
    field,
    /** The code field is shown: send what it holds. */
    asked,
    /** A passkey confirmed the second factor: the form goes without a code. */
    confirmed,
    /** Whether `error` asks for the factor anew: then the field appears, and it is no refusal of the form. */
    askedBy(error: unknown) {
      if (asked || !isFactorRecheck(error, field)) return false;
      setAsked(true);
      setConfirmed(false);
      return true;
    },
    confirm() {
      setAsked(false);
      setConfirmed(true);
    },
    /** The change went through: the factor counts for a few minutes, the field goes. */
    done() {
      setAsked(false);
      setConfirmed(false);
    },
  };
}

export type FactorRecheck<N extends string = 'code'> = ReturnType<typeof useFactorRecheck<N>>;

/**
 * The code a second factor is asked in on `field`: the app's too where it is on (on `code`), else
 * a recovery code. Its label (useCodeLabel) names it in the form's summary too.
 */
export const factorKind = (methods: readonly SecondStepMethod[], field: string): CodeKind =>
  field === 'code' && methods.includes('totp') ? 'either' : 'recovery';

/**
 * The second factor the server asked for, in the form that was asked: why, the code (a recovery
 * code, or the app's too where it is on), and with scripts, for an account with passkeys, one
 * confirmed in place instead. Nothing until it is asked; then the field takes focus.
 */
export function SecondFactorField<F extends string, N extends string>({
  form,
  recheck,
  methods,
}: {
  form: Form<F | N>;
  recheck: FactorRecheck<N>;
  /** The account's ways of the second step (account.me). */
  methods: readonly SecondStepMethod[];
}) {
  const s = useSecurityText();
  const codeLabel = useCodeLabel();
  const hydrated = useHydrated();
  const utils = trpc.useUtils();
  const { busy, note, ask } = usePasskeyPrompt(form.failWith);
  const name = recheck.field;
  const passkey = hydrated && methods.includes('passkey');
  // The app's code only where the app is on (the app being turned on asks for a recovery code).
  const kind = factorKind(methods, name);
  const help = `${name}-recheck`;
  useEffect(() => {
    if (recheck.asked) document.getElementById(name)?.focus();
  }, [recheck.asked, name]);

  const confirmWithPasskey = () => {
    if (busy) return;
    void ask(async (prompts) => {
      if (!prompts.canUsePasskeys()) throw new PromptFailed(new Error('WebAuthn is not available'));
      const options = await utils.client.passkeys.recheckOptions.mutate();
      const response = await prompt(() => prompts.askForPasskey(options));
      await utils.client.passkeys.recheck.mutate({ response: assertionAnswer(response) });
      recheck.confirm();
    });
  };

  return (
    <>
      {recheck.asked && (
        <>
          <p className="notice" id={help}>
            {s(passkey ? 'factorRecheckPasskey' : 'factorRecheck')}
          </p>
          <CodeField form={form} name={name} kind={kind} label={codeLabel(kind)} describedBy={[help]} />
          {passkey && (
            <p>
              <button type="button" className="secondary" aria-busy={busy} onClick={confirmWithPasskey}>
                {s(busy ? 'factorUsingPasskey' : 'factorUsePasskey')}
              </button>
            </p>
          )}
        </>
      )}
      <p className="factor-note" role="status">
        {recheck.confirmed ? s('factorConfirmed') : recheck.asked ? note : null}
      </p>
    </>
  );
}
