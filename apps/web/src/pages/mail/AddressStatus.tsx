import { lazy, memo, Suspense } from 'react';
import type { SignedInUser } from '../../session';

// The address status and its "send the link again" load with their words (the mail pages' chunk),
// apart from the first page.
const EmailStatus = lazy(() => import('./MailPages').then((m) => ({ default: m.EmailStatus })));

/**
 * The address status (the account page, the email address page) in a boundary of its own, left as
 * it is when the page around it draws again for the same user (e.g. when account.me's two-step
 * state arrives): a boundary still taking over the server's HTML that is drawn again would show
 * its empty fallback until its code has loaded.
 */
export const AddressStatus = memo(function AddressStatus({
  user,
  offersResend = true,
}: {
  user: SignedInUser;
  /** False where the page offers the link again itself (the account page just after registering). */
  offersResend?: boolean;
}) {
  return (
    <Suspense fallback={null}>
      <EmailStatus user={user} offersResend={offersResend} />
    </Suspense>
  );
});
