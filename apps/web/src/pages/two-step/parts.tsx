import type { ReactNode } from 'react';
import { PasskeysLink } from '../../components/PasskeysLink';
import { StepLink, stepHref, stepIn } from '../../components/StepLink';
import { useI18n } from '../../i18n';
import { useLocation } from '../../router';
import type { SignedInUser } from '../../session';
import { useTwoStepText } from './strings';

/** The form open on the page when two-step sign-in is on: its address is `?open=off` or `?open=codes`. */
export type Open = 'off' | 'codes';
const OPEN = 'open';
export const openIn = (search: URLSearchParams): Open | null => {
  const open = stepIn(search, [OPEN])?.value;
  return open === 'off' || open === 'codes' ? open : null;
};

/** What turning off or making new codes did: new codes, or none (it is off). */
export type Change = { codes: string[] | null };

export interface ActionFormProps {
  user: SignedInUser;
  onDone: (change: Change) => void;
  onStale: (text: string) => void;
  onCancel: () => void;
}

/** One thing to do about two-step sign-in: its heading, what it does, then its form or link. */
export function ActionSection({
  id,
  title,
  help,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string;
  title: string;
  help: string;
  children: ReactNode;
}) {
  return (
    <section className="two-step-action" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p>{help}</p>
      {children}
    </section>
  );
}

/** The way to the passkeys page from here, with how many the account has. */
export function PasskeysSection({ help }: { help: string }) {
  const { t } = useI18n();
  return (
    <ActionSection id="two-step-passkeys-title" title={t('passkeysTitle')} help={help}>
      <p>
        <PasskeysLink />
      </p>
    </ActionSection>
  );
}

/**
 * A section's form where it is open (`open`), else the link that opens it: without scripts a link
 * to the page's `?open=` address, with them the form shown in place.
 */
export function FormOrLink({
  form,
  open,
  setOpen,
  label,
  children,
}: {
  form: Open;
  open: Open | null;
  setOpen: (open: Open) => void;
  label: string;
  children: ReactNode;
}) {
  const { path } = useLocation();
  if (open === form) return children;
  return (
    <StepLink
      href={stepHref(path, OPEN, form)}
      className="secondary button-link"
      data-opens={form}
      onOpen={() => setOpen(form)}
    >
      {label}
    </StepLink>
  );
}

/** Cancel of an open form: the page without it (its plain address), or with scripts, the form closed in place. */
export function CancelLink({ busy, onCancel }: { busy: boolean; onCancel: () => void }) {
  const s = useTwoStepText();
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
