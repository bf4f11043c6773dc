import type { SecondStepMethod } from '@accounts/validators';
import { useEffect, useRef, type FormEvent } from 'react';
import { PostForm } from '../../components/PostForm';
import { SubmitButton } from '../../components/SubmitButton';
import { describeFailure, isUnauthenticated } from '../../failure';
import { problemError, useFormOutcome } from '../../forms/form-outcome';
import { useI18n } from '../../i18n';
import { useSessionEnded, type SignedInUser } from '../../session';
import { trpc, type RouterOutputs } from '../../trpc';
import { isStale } from './stale';
import { useTwoStepText } from './strings';
import { TotpSetup } from './TotpSetup';

/**
 * The authenticator app's set-up (QR code, key, then a code and the password to turn it on; beside
 * passkeys, `methods` non-empty, a second factor when the server asks for one).
 */
export function AppSetUp({
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
  const s = useTwoStepText();
  const { locale } = useI18n();
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
