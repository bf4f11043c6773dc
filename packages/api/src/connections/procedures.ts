import { eq } from 'drizzle-orm';
import { users } from '@accounts/db';
import { removeConnectionSchema } from '@accounts/validators';
import { factorIsFresh } from '../credentials/account-level.js';
import { passwordIsFresh } from '../credentials/current-password.js';
import { connectionsOf, unlinkIdentity } from '../credentials/upstream/identities.js';
import { realmProviders } from '../credentials/upstream/providers.js';
import { startAuthorization } from '../credentials/upstream/start.js';
import { ProblemError } from '../kernel/errors.js';
import { queueConnectionNotice } from '../mail/notices.js';
import type { Procedures } from '../procedures.js';
import { eventSource, recordEvent } from '../records/events.js';
import { hasPassword } from '../records/users.js';
import { connectionsResult, connectResult, removeConnectionResult } from './outputs.js';

/**
 * The account's connected accounts at upstream providers (wire namespace `connections`): the
 * list, connecting one (after the password or a second factor proved in the last five minutes:
 * a stolen session alone links no one else's identity), and removing one (never the last way in).
 */
export function connectionProcedures({ authedProcedure, accountWriteProcedure }: Procedures) {
  return {
    connections: {
      list: authedProcedure
        .meta({
          summary:
            'The accounts at upstream providers connected to this account (each with the address it gave and when it was connected and last used), and the providers of the realm it may still connect.',
        })
        .output(connectionsResult)
        .query(async ({ ctx }) => {
          const { user } = ctx.auth;
          const connections = await connectionsOf(ctx.db, user.id);
          const linked = new Set(connections.map((c) => c.provider));
          const available = (await realmProviders(ctx.db, ctx.realm.id))
            .filter((p) => !linked.has(p.slug))
            .map((p) => ({ id: p.slug, name: p.name }));
          return { connections, available, hasPassword: hasPassword(user) };
        }),

      connect: accountWriteProcedure
        .meta({
          summary:
            "Connect an account at a provider of the realm: a redirect (303) to the provider; its callback links the identity to this account. Asks that this session proved the password or a second factor in the last five minutes (`403 connection_recheck_required`: sign in again first). An identity already connected to another account is `409 connection_taken` at the callback. An account event (`connection_added`) and a notice to the account's address.",
          problems: ['provider_unknown', 'upstream_unavailable', 'connection_recheck_required', 'rate_limited'],
        })
        .input(removeConnectionSchema)
        .output(connectResult)
        .mutation(async ({ ctx, input }) => {
          const { user, session } = ctx.auth;
          const fresh = (await passwordIsFresh(ctx.db, session.id)) || (await factorIsFresh(ctx.db, session.id));
          if (!fresh) throw new ProblemError('connection_recheck_required');
          return startAuthorization(ctx, input.provider, { next: '/settings/connections', userId: user.id });
        }),

      remove: accountWriteProcedure
        .meta({
          summary:
            "Remove a connected account (`provider` from GET /users/connections): it no longer signs in here. Refused while it is the only way in (no password, no passkey, no other connection): `409 connection_last_way_in`. An unknown provider, or one the account is not connected to, is 404. An account event (`connection_removed`) and a notice to the account's address.",
          problems: ['not_found', 'connection_last_way_in', 'rate_limited'],
        })
        .input(removeConnectionSchema)
        .output(removeConnectionResult)
        .mutation(async ({ ctx, input }) => {
          const { user } = ctx.auth;
          await ctx.db.transaction(async (tx) => {
            // The account's row held: two removals at once cannot both leave it without a way in.
            const [locked] = await tx.select().from(users).where(eq(users.id, user.id)).for('update');
            if (!locked) throw new ProblemError('not_found');
            const removed = await unlinkIdentity(tx, locked, input.provider);
            const app = { clientId: input.provider, name: removed.name };
            await recordEvent(tx, eventSource(ctx), 'connection_removed', user.id, app);
            await queueConnectionNotice(tx, ctx, locked, 'removed', removed.name);
          });
          return { ok: true as const };
        }),
    },
  };
}
