import {
  disableTotpSchema,
  revokeOtherSessionsSchema,
  type RegistrationResponseInput,
  type SecondStepMethod,
} from '@accounts/validators';
import {
  browserSupportsWebAuthn,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { useEffect, useMemo, useState } from 'react';
import { useCodeLabel } from '../../components/CodeField';
import { CurrentPasswordField, isPasswordRecheck } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { Field } from '../../components/Field';
import { factorKind, SecondFactorField, useFactorRecheck } from '../../components/SecondFactorField';
import { SubmitButton } from '../../components/SubmitButton';
import { WordedError } from '../../failure';
import { useForm, type FormSchema } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import type { SignedInUser } from '../../session';
import { trpc } from '../../trpc';
import { promptWords } from '../../usePasskeyPrompt';
import { prompt, PromptDismissed, PromptFailed } from '../../webauthn';
import { RENAME_SCHEMA, type Passkey } from './passkey';
import { usePasskeysText } from './strings';

/** The options to make a passkey (passkeys.registrationOptions), as the library takes them. */
const creationOptions = (options: { challenge: string }) =>
  options as unknown as PublicKeyCredentialCreationOptionsJSON;

/** The browser's new passkey as passkeys.add takes it (the same JSON; its extension outputs a plain record). */
const registrationAnswer = (response: RegistrationResponseJSON): RegistrationResponseInput => ({
  ...response,
  clientExtensionResults: { ...response.clientExtensionResults },
});

// The current password is the one every form asks for, a second-step code the one turning the
// app off takes (passkey.ts says why the passkey schemas are not imported).
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
export function AddPasskey({
  user,
  methods,
  onAdded,
}: {
  user: SignedInUser;
  /** The account's ways of the second step: with two-step sign-in on, adding a passkey may ask for one. */
  methods: readonly SecondStepMethod[];
  onAdded: (passkey: Passkey, recoveryCodes: string[] | undefined) => void;
}) {
  const s = usePasskeysText();
  const { locale, t } = useI18n();
  const codeLabel = useCodeLabel();
  const utils = trpc.useUtils();
  const add = trpc.passkeys.add.useMutation();
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
            error.cause.name === 'InvalidStateError'
              ? s('passkeyAlreadyOnDevice')
              : (await promptWords(locale))('passkeyDeviceFailed'),
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
    code: codeLabel(factorKind(methods, 'code')),
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
              <CurrentPasswordField
                form={form}
                label={labels.current_password}
                email={user.email}
                asked={{ id: 'passkey-recheck', text: s('passkeyRecheck') }}
              />
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
