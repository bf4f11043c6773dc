import type { ReactNode } from 'react';
import { LoadError, Loading } from './components/Status';
import { loginPathFor, Redirect, useLocation } from './router';
import { useSession, type SignedInUser } from './session';

/** Shows a page to a signed-in user; anyone else goes to sign-in and comes back here after. */
export function RequireAuth({ children }: { children: (user: SignedInUser) => ReactNode }) {
  const session = useSession();
  const { path } = useLocation();
  switch (session.status) {
    case 'signed-in':
      return children(session.user);
    case 'signed-out':
      return <Redirect to={loginPathFor(path)} />;
    case 'error':
      return <LoadError error={session.error} retry={session.retry} />;
    default:
      return <Loading />;
  }
}
