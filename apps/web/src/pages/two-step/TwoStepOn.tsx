import { useFocusNext } from '../../focus';
import type { SignedInUser, TwoStepStatus } from '../../session';
import { AppSetUp } from './AppSetUp';
import { NewCodesForm } from './NewCodesForm';
import { ActionSection, FormOrLink, PasskeysSection, type Change, type Open } from './parts';
import { useTwoStepText } from './strings';
import { TurnOffForm } from './TurnOffForm';

/**
 * On: through what (the app, passkeys), how many recovery codes are left, and (one at a time,
 * after the password) new codes, and turning the app off or setting it up beside passkeys.
 */
export function TwoStepOn({
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
  const s = useTwoStepText();
  // A cancelled form gives focus back to the link that opened it, once it is shown again.
  const focusNext = useFocusNext();
  const cancel = () => {
    if (open) focusNext(`[data-opens="${open}"]`);
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
      <ActionSection id="new-codes-title" title={s('newCodesTitle')} help={s('newCodesHelp')}>
        <FormOrLink form="codes" open={open} setOpen={setOpen} label={s('newCodesSubmit')}>
          <NewCodesForm user={user} methods={twoStep.methods} onDone={onChange} onStale={onStale} onCancel={cancel} />
        </FormOrLink>
      </ActionSection>
      {appOn ? (
        // With passkeys, turning the app off leaves two-step sign-in on.
        <ActionSection
          id="two-step-off-title"
          title={s(passkeys ? 'twoStepAppOffTitle' : 'twoStepOffTitle')}
          help={s(passkeys ? 'twoStepAppOffHelp' : 'twoStepOffHelp')}
        >
          <FormOrLink form="off" open={open} setOpen={setOpen} label={s('twoStepTurnOff')}>
            <TurnOffForm user={user} onDone={onChange} onStale={onStale} onCancel={cancel} />
          </FormOrLink>
        </ActionSection>
      ) : (
        <ActionSection id="two-step-app-title" title={s('twoStepAppTitle')} help={s('twoStepAppIsOff')}>
          <AppSetUp user={user} methods={twoStep.methods} onEnabled={onAppEnabled} onStale={onStale} />
        </ActionSection>
      )}
      <PasskeysSection help={s('twoStepPasskeysHelp')} />
    </>
  );
}
