import { enableTotpSchema, type SecondStepMethod } from '@accounts/validators';
import { CodeField, useCodeLabel } from '../../components/CodeField';
import { CopyButton } from '../../components/CopyButton';
import { CurrentPasswordField } from '../../components/CurrentPasswordField';
import { ErrorSummary } from '../../components/ErrorSummary';
import { postFormOf, PostForm } from '../../components/PostForm';
import { factorKind, isFactorRecheck, SecondFactorField, useFactorRecheck } from '../../components/SecondFactorField';
import { SubmitButton } from '../../components/SubmitButton';
import { useForm } from '../../forms/useForm';
import { useI18n } from '../../i18n';
import type { SignedInUser } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';
import { isStale, useStaleAware } from './stale';
import { useTwoStepText } from './strings';

/** The secret in groups of four, as authenticator apps show keys and people type them. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** The app's code and the password; beside passkeys, a recovery code when the server asks for one. */
const ENABLE_ASKED = enableTotpSchema.required({ recovery_code: true });
const ENABLE = enableTotpSchema.omit({ recovery_code: true });

/** The app's set-up once asked for: its QR code and key, then a code from the app and the password. */
export function TotpSetup({
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
  const s = useTwoStepText();
  const { t } = useI18n();
  const codeLabel = useCodeLabel();
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
    code: codeLabel('app'),
    current_password: t('fieldCurrentPassword'),
    recovery_code: codeLabel(factorKind(methods, 'recovery_code')),
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
        <code>{grouped(setup.secret)}</code> <CopyButton text={setup.secret} label={s('twoStepCopyKey')} />
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
