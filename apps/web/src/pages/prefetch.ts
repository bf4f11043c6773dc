import type { AppRouter } from '@accounts/api';
import type { createTRPCQueryUtils } from '@trpc/react-query';
import type { LinkPurpose } from '@accounts/validators/account-links';
import type { FormOutcome } from '../page-data';
import type { PagePath } from './registry';

// What the server asks before it renders a page (entry-server.tsx), so the page arrives whole
// and works without scripts: its queries besides the session and the realm, with the same keys
// the page's hooks use, whose answers go along with the page. Only the server build loads this
// file: the browser's first script does not carry it.

/** The app's queries as the server asks them for a page it renders (the same keys the hooks use). */
export type PrefetchUtils = ReturnType<typeof createTRPCQueryUtils<AppRouter>>;

/** Asks a page's queries: from its address's query (`search`), and what a form posted to it came to. */
export type Prefetch = (utils: PrefetchUtils, search: URLSearchParams, form?: FormOutcome) => Promise<unknown>;

/** A mailed link's token, as the pages behind mailed links read it. */
const tokenOf = (search: URLSearchParams) => search.get('token') ?? '';

/** Where a mailed link stands (CheckedLink's query), asked with the page: no token, no question. */
const checkLink = async (utils: PrefetchUtils, purpose: LinkPurpose, search: URLSearchParams) => {
  const token = tokenOf(search);
  if (token) await utils.email.checkLink.prefetch({ purpose, token }, { staleTime: Infinity });
};

/** By page path (PAGE_REGISTRY's). */
const PAGE_PREFETCH: Readonly<Partial<Record<PagePath, Prefetch>>> = {
  // The realm's other providers.
  '/login': (utils) => utils.upstream.providers.prefetch(),
  '/register': (utils) => utils.upstream.providers.prefetch(),
  '/settings': (utils) => utils.passkeys.list.prefetch(),
  '/settings/email': (utils) => utils.emailChange.pending.prefetch(),
  '/settings/sessions': (utils) => utils.security.sessions.prefetch(),
  '/settings/apps': (utils) => utils.apps.list.prefetch(),
  // The page of events the address names (`?cursor=`: the "older" link), or the newest.
  '/settings/activity': (utils, search) => {
    const cursor = search.get('cursor');
    return utils.security.activity.prefetch(cursor ? { cursor } : {});
  },
  // A wrong code at the set-up: the page asks for it again beside the same secret.
  '/settings/two-step': async (utils, _search, form) =>
    form?.form === 'enableTotp' && form.problem ? utils.twoStep.pendingTotp.prefetch() : undefined,
  '/settings/passkeys': (utils) => utils.passkeys.list.prefetch(),
  '/settings/connections': (utils) => utils.connections.list.prefetch(),
  // The pages behind mailed links: where the link stands (read only), and what it would do.
  '/reset-password': (utils, search) => checkLink(utils, 'reset_password', search),
  '/verify-email': (utils, search) =>
    Promise.all([
      checkLink(utils, 'verify_email', search),
      utils.email.verificationLink.prefetch({ token: tokenOf(search) }, { staleTime: Infinity }),
    ]),
  '/confirm-email-change': (utils, search) =>
    Promise.all([
      checkLink(utils, 'change_email', search),
      utils.emailChange.link.prefetch({ token: tokenOf(search) }, { staleTime: Infinity }),
    ]),
};

/** What the page at `path` (normalized) asks before it is rendered, if anything. */
export const prefetchAt = (path: string): Prefetch | undefined =>
  Object.hasOwn(PAGE_PREFETCH, path) ? PAGE_PREFETCH[path as PagePath] : undefined;
