import { isUnauthenticated } from './failure';
import { trpc } from './trpc';

export type SignedInUser = { id: string; name: string; email: string; realm: string };

export type Session =
  | { status: 'loading' }
  | { status: 'signed-in'; user: SignedInUser }
  | { status: 'signed-out' }
  | { status: 'error'; error: unknown; retry: () => void };

/** Who is signed in, from account.me: a 401 there simply means nobody. */
export function useSession(): Session {
  const me = trpc.account.me.useQuery(undefined);
  if (me.data) return { status: 'signed-in', user: me.data.user };
  if (me.error && isUnauthenticated(me.error)) return { status: 'signed-out' };
  if (me.error) return { status: 'error', error: me.error, retry: () => void me.refetch() };
  return { status: 'loading' };
}

/** Records a fresh sign-in without asking the server again. */
export function useSetSignedIn() {
  const utils = trpc.useUtils();
  return (user: SignedInUser) => utils.account.me.setData(undefined, { user });
}

/** Forgets the signed-in user, e.g. after signing out or when the session turned out to be gone. */
export function useForgetSession() {
  const utils = trpc.useUtils();
  return () => utils.account.me.reset();
}

/** The realm and password policy; the app shell renders pages only once these are loaded. */
export function useRealmSettings() {
  const { data } = trpc.account.settings.useQuery(undefined, { staleTime: Infinity });
  if (!data) throw new Error('account.settings is not loaded yet');
  return data;
}
