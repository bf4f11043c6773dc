import { partialMatchKey, useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { getQueryKey } from '@trpc/react-query';
import { useEffect } from 'react';
import { isUnauthenticated } from './failure';
import { useI18n } from './i18n';
import { loginPathFor, navigate } from './router';
import { trpc, type RouterOutputs } from './trpc';

/** The user as the server describes it (account.me), never a copy kept by hand. */
export type SignedInUser = RouterOutputs['account']['me']['user'];

/** Whether the account's sign-in has a second step, its ways, and how many recovery codes are left. */
export type TwoStepStatus = RouterOutputs['account']['me']['twoStep'];

/** When the password was set, and whether the account page suggests a second factor (account.me's `security`). */
export type AccountSecurity = RouterOutputs['account']['me']['security'];

export type MeAnswer = RouterOutputs['account']['me'];

/**
 * account.me's answer as far as the app knows it without asking: the page data of a rendered page
 * and a sign-in's answer name the user, and the two-step state (with `security`) only when it
 * came along. The pages that show that state ask for it when it is missing (useTwoStep); nothing else waits.
 */
export const knownMe = (user: SignedInUser, twoStep?: TwoStepStatus, security?: AccountSecurity) =>
  ({ user, twoStep, security }) as MeAnswer;

/** account.me's place in the cache when the server rendered the page for nobody signed in. */
export const NOBODY = null as unknown as MeAnswer;

export type Session =
  | { status: 'loading' }
  | { status: 'signed-in'; user: SignedInUser }
  | { status: 'signed-out' }
  | { status: 'error'; error: unknown; retry: () => void };

/** Who is signed in, from account.me: a 401 there simply means nobody. */
export function useSession(): Session {
  const me = trpc.account.me.useQuery(undefined);
  if (me.data) return { status: 'signed-in', user: me.data.user };
  if (me.data === NOBODY || (me.error && isUnauthenticated(me.error))) return { status: 'signed-out' };
  if (me.error) return { status: 'error', error: me.error, retry: () => void me.refetch() };
  return { status: 'loading' };
}

/**
 * Drops everything the app holds about whoever was signed in (every answer but the realm's
 * settings), so the next person in this tab never sees it: on signing out, on a session found
 * ended, and before a new sign-in. `keep` is a query left alone (one whose own refusal said so).
 */
export function forgetPersonalData(queryClient: QueryClient, keep?: Pick<Query, 'queryHash'>) {
  const settings = getQueryKey(trpc.account.settings, undefined, 'query');
  const me = getQueryKey(trpc.account.me, undefined, 'query');
  const kept = (q: Query) => q.queryHash === keep?.queryHash || partialMatchKey(q.queryKey, settings);
  queryClient.removeQueries({ predicate: (q) => !kept(q) && !partialMatchKey(q.queryKey, me) });
  // Who is signed in is asked again at once by everything showing it (the header among them).
  void queryClient.resetQueries({ queryKey: me, predicate: (q) => !kept(q) });
}

/** Records a fresh sign-in without asking the server again (nothing of anyone before it stays). */
export function useSetSignedIn() {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  return (user: SignedInUser) => {
    forgetPersonalData(queryClient);
    utils.account.me.setData(undefined, knownMe(user));
  };
}

/**
 * The signed-in account's two-step state (account.me), undefined until it is known: when the
 * answer held is one the app made up from a page's data or a sign-in, it is asked for. `error`
 * is that request's failure, if it failed.
 */
export function useTwoStep(): { twoStep?: TwoStepStatus; error: unknown; retry: () => void } {
  const me = trpc.account.me.useQuery(undefined);
  const twoStep = (me.data as Partial<MeAnswer> | undefined)?.twoStep;
  const missing = Boolean(me.data) && twoStep === undefined;
  useEffect(() => {
    // Several parts of a page may ask at once: one request answers them all.
    if (missing) void me.refetch({ cancelRefetch: false });
  }, [missing]); // eslint-disable-line react-hooks/exhaustive-deps
  return { twoStep, error: twoStep ? null : me.error, retry: () => void me.refetch() };
}

/** Forgets the signed-in user and all of their data, e.g. after signing out or when the session turned out to be gone. */
export function useForgetSession() {
  const queryClient = useQueryClient();
  return () => forgetPersonalData(queryClient);
}

/**
 * The realm and its password policy. index.html preloads the same request, so it is usually
 * answered by the time the app starts; the page frame does not wait for it.
 */
export function useSettingsQuery() {
  return trpc.account.settings.useQuery(undefined, { staleTime: Infinity });
}

/** The realm settings, for pages: the app renders a page only once these are loaded. */
export function useRealmSettings() {
  const { data } = useSettingsQuery();
  if (!data) throw new Error('account.settings is not loaded yet');
  return data;
}

/** The service's name: configured on the server (PRODUCT_NAME), else the interface's word for it. */
export function useProductName() {
  const { t } = useI18n();
  return useSettingsQuery().data?.productName ?? t('appName');
}

/**
 * The session ended while the person was on a page (it expired, or was signed out elsewhere):
 * off to sign in, with the reason said there, and back to this page afterwards.
 */
export function useSessionEnded() {
  const forgetSession = useForgetSession();
  return () => {
    // Leave first: a protected page that saw the session vanish would redirect without the reason.
    navigate(loginPathFor(window.location.pathname + window.location.search, { expired: true }), { replace: true });
    void forgetSession();
  };
}
