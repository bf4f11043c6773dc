import { revokeAppSchema } from '@accounts/validators';
import { ProblemError } from '../kernel/errors.js';
import type { Procedures } from '../procedures.js';
import { eventSource, recordEvent } from '../records/events.js';
import { appsWithAccess, removeAppAccess } from './apps.js';
import { appsResult, revokeAppResult } from './apps-outputs.js';

/**
 * The apps the account gave access to (OpenID Connect clients it signed in to), and taking that
 * access away (wire namespace `apps`). Every query is bounded by the signed-in account's subject
 * in its realm: another account's grants are never found, and are answered as unknown ones.
 */
export function appsProcedures({ authedProcedure, accountWriteProcedure }: Procedures) {
  return {
    apps: {
      list: authedProcedure
        .meta({
          summary:
            "The apps with access to the account (a live grant: its consent, or a first-party app's sign-in): each app's `clientId` and name, what it may see (its granted `scopes`: `openid`, `profile` for the name and language, `email` for the address, `offline_access` to stay signed in), when access was given and when it last got a token; the most recently used first.",
        })
        .output(appsResult)
        .query(async ({ ctx }) => {
          const { user } = ctx.auth;
          return { apps: await appsWithAccess(ctx.db, ctx.realm.id, user.subject) };
        }),

      revoke: accountWriteProcedure
        .meta({
          summary:
            "Remove an app's access (`client_id` from GET /users/apps): its grants and every code and token of them end at once (the app's refresh and access tokens are refused from then on: introspection says `active: false`, userinfo 401); signing in to it again asks for consent again. No password is needed: it only takes access away. An id that is no app with access to the account, malformed or unknown, is 404. An account event (`app_access_removed`). Counted against the account's and the address's limit on writes.",
          problems: ['not_found', 'rate_limited'],
        })
        .input(revokeAppSchema)
        .output(revokeAppResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          const removed = await ctx.db.transaction(async (tx) => {
            const app = await removeAppAccess(tx, ctx.realm.id, user.subject, input.client_id);
            if (app) await recordEvent(tx, eventSource(ctx), 'app_access_removed', user.id, app);
            return app;
          });
          // Unknown, malformed and another account's apps get one answer.
          if (!removed) throw new ProblemError('not_found');
          return { ok: true as const };
        }),
    },
  };
}
