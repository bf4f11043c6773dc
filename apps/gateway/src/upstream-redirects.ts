import type { Problem } from '@accounts/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormRoute } from './form-routes.js';
import { sessionCookieOf } from './session-transport.js';

// Where each browser step of a sign-in at an upstream provider leads (the FORM_ROUTES rows marked
// `redirect`): always a page of this site or the provider, never a body. A refusal lands on the
// page that explains it (its problem's code in the address, which the page words in the person's
// language): the sign-in page, or the connected accounts for someone signed in.

type Outcome = { result: unknown } | { problem: Problem };

const withQuery = (path: string, query: Record<string, string | undefined>) => {
  const url = new URL(path, 'http://self.invalid');
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  return url.pathname + url.search;
};

export function upstreamRedirect(route: FormRoute, req: FastifyRequest, outcome: Outcome): string {
  const query = req.query as Record<string, unknown>;
  const provider = (req.params as { provider?: string }).provider ?? '';
  if ('result' in outcome) {
    const r = outcome.result as {
      location?: string;
      next?: string;
      state?: string | null;
      tookOver?: true;
      connected?: string;
    };
    if (route.procedure === 'upstream.keepFormPost')
      return withQuery(`/users/oauth/${encodeURIComponent(provider)}/callback`, { state: r.state ?? undefined });
    if (r.location) return r.location;
    if (r.tookOver) return withQuery('/settings/connections', { notice: 'upstream_took_over' });
    if (r.connected) return withQuery('/settings/connections', { notice: 'connected' });
    return r.next ?? '/account';
  }
  const { problem } = outcome;
  const next = problem.next ?? (typeof query.next === 'string' ? query.next : undefined);
  if (problem.code === 'second_factor_required')
    return withQuery('/login', { step: 'second', methods: problem.methods?.join(' '), next });
  if (problem.code === 'unauthenticated') return withQuery('/login', { next: '/settings/connections' });
  if (problem.code === 'upstream_link_required') return withQuery('/login', { link: 'pending', next });
  const signedIn = route.procedure === 'connections.connect' || sessionCookieOf(req) !== null;
  return withQuery(signedIn ? '/settings/connections' : '/login', {
    problem: problem.code,
    retry_after: problem.retryAfter === undefined ? undefined : String(problem.retryAfter),
  });
}

export const redirectTo = (reply: FastifyReply, location: string) =>
  reply.code(303).header('location', location).header('cache-control', 'no-store').send();
