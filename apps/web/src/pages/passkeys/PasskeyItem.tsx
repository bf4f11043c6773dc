import type { SecondStepMethod } from '@accounts/validators';
import { ConfirmOwner } from '../../components/ConfirmOwner';
import { StepLink, stepHref } from '../../components/StepLink';
import { useI18n } from '../../i18n';
import { TimeAgo } from '../../relative-time';
import { useLocation } from '../../router';
import type { SignedInUser } from '../../session';
import type { Passkey } from './passkey';
import { RenameForm } from './RenameForm';
import { usePasskeysText } from './strings';

/** What can be done to one passkey, after its link: each its form in place of the links. */
export type PasskeyAction = 'rename' | 'remove';

/**
 * One passkey of the list (name, kind, synced, added and last used), with Rename and Remove; the
 * form of the one opened (`opened`) in their place. Removing asks for the password (and, for the
 * last second factor, the factor when the server asks for it).
 */
export function PasskeyItem({
  passkey,
  opened,
  user,
  methods,
  onlyFactor,
  onOpen,
  onRenamed,
  onRemove,
  onGone,
  onCancel,
}: {
  passkey: Passkey;
  opened: PasskeyAction | null;
  user: SignedInUser;
  /** The account's ways of the second step: removing the last second factor may ask for one. */
  methods: readonly SecondStepMethod[];
  /** It is the account's only second factor: removing it turns two-step sign-in off. */
  onlyFactor: boolean;
  onOpen: (action: PasskeyAction) => void;
  onRenamed: (name: string) => void;
  onRemove: (password: string, code?: string) => Promise<void>;
  onGone: (error: unknown) => void;
  onCancel: () => void;
}) {
  const s = usePasskeysText();
  const { locale } = useI18n();
  const { path } = useLocation();
  const { id, name } = passkey;
  return (
    <li className="passkey">
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
        <RenameForm passkey={passkey} cancelHref={path} onRenamed={onRenamed} onGone={onGone} onCancel={onCancel} />
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
          methods={methods}
          onConfirm={onRemove}
          onCancel={onCancel}
        >
          {onlyFactor && <p className="notice">{s('passkeyRemoveLast')}</p>}
        </ConfirmOwner>
      ) : (
        <p className="passkey-actions">
          <ActionLink action="rename" passkey={passkey} onOpen={onOpen} />{' '}
          <ActionLink action="remove" passkey={passkey} onOpen={onOpen} />
        </p>
      )}
    </li>
  );
}

const LINKS = {
  rename: { text: 'passkeyRename', label: 'passkeyRenameLabel' },
  remove: { text: 'passkeyRemove', label: 'passkeyRemoveLabel' },
} as const;

/** The link that opens an action's form: the page's `?rename=<id>` or `?remove=<id>`, or with scripts the form in place. */
function ActionLink({
  action,
  passkey,
  onOpen,
}: {
  action: PasskeyAction;
  passkey: Passkey;
  onOpen: (action: PasskeyAction) => void;
}) {
  const s = usePasskeysText();
  const { path } = useLocation();
  return (
    <StepLink
      href={stepHref(path, action, passkey.id)}
      className="secondary button-link"
      aria-label={s(LINKS[action].label, { name: passkey.name })}
      data-opens={`${action}-${passkey.id}`}
      onOpen={() => onOpen(action)}
    >
      {s(LINKS[action].text)}
    </StepLink>
  );
}
