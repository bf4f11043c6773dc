import { LoadError, Loading } from '../components/Status';
import { Redirect } from '../router';
import { useSession } from '../session';

/** The site's root: the account for someone signed in, else the sign-in page. */
export function HomePage() {
  const session = useSession();
  if (session.status === 'signed-in') return <Redirect to="/account" />;
  if (session.status === 'signed-out') return <Redirect to="/login" />;
  if (session.status === 'error') return <LoadError error={session.error} retry={session.retry} />;
  return <Loading />;
}
