import type { LinkPurpose } from '@accounts/validators/account-links';
import type { ReactNode } from 'react';
import { usePostedForm } from '../../forms/form-outcome';
import type { PageFormName } from '../../page-forms';
import { trpc } from '../../trpc';
import { useMailText } from './strings';

/** Why a link would not work, and the address it was mailed to where the server tells it. */
export interface StaleLink {
  state: 'used' | 'expired' | 'unknown';
  email?: string;
}

/**
 * A mailed link's page, gated on where the link stands (`email.checkLink`, read only: the token
 * stays usable however often it is asked). The server asks before it renders, so without scripts
 * too a used, expired or unknown link says so at once, with `stale` (the form for a new link)
 * instead of the page's own form. A form of the page posted without scripts (`forms`) is past the
 * check: its answer shows, though the link is used by then. A check that could not be answered
 * (the limit, the network) leaves the page's own form, which tells how the link stands when sent.
 */
export function CheckedLink({
  purpose,
  token,
  forms,
  stale,
  children,
}: {
  purpose: LinkPurpose;
  token: string;
  forms: readonly PageFormName[];
  stale: (link: StaleLink) => ReactNode;
  children: ReactNode;
}) {
  const m = useMailText();
  const posted = usePostedForm();
  const link = trpc.email.checkLink.useQuery({ purpose, token }, { staleTime: Infinity, retryOnMount: false });
  if (posted && (forms as readonly string[]).includes(posted.form)) return children;
  if (link.isPending) return <p role="status">{m('verifyChecking')}</p>;
  const answer = link.data;
  if (!answer || answer.state === 'usable') return children;
  return (
    <>
      <div className="notice link-stale" role="status">
        <p className={`link-${answer.state}`}>
          {m(answer.state === 'used' ? 'linkUsed' : answer.state === 'expired' ? 'linkExpired' : 'linkUnknown')}
        </p>
      </div>
      {stale({ state: answer.state, email: answer.email })}
    </>
  );
}
