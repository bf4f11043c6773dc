import { exportDataSchema } from '@accounts/validators';
import { exportAccount } from './export.js';
import { requireRecentPassword } from '../credentials/current-password.js';
import { eventSource, recordEvent } from '../records/events.js';
import { queueDataExported } from '../mail/notices.js';
import type { Context } from '../kernel/context.js';
import type { Procedures } from '../procedures.js';
import { accountExportSchema } from './export-outputs.js';
import type { Session, User } from '@accounts/db';

/** The copy, once the session proved the password lately: an account event, and a notice to the owner. */
async function handOverCopy(ctx: Context, auth: { user: User; session: Session }, password: string | undefined) {
  await requireRecentPassword(ctx, auth, password);
  const copy = await exportAccount(ctx.db, ctx.realm, auth.user, auth.session);
  await ctx.db.transaction(async (tx) => {
    await recordEvent(tx, eventSource(ctx), 'data_exported', auth.user.id);
    await queueDataExported(tx, ctx, auth.user);
  });
  return copy;
}

/**
 * A person's own data: a copy of everything the service holds about the account. It needs the
 * password proved by this session within five minutes, or given now (`current_password`).
 */
export function exportProcedures({ authedLimitedProcedure }: Procedures) {
  return {
    accountData: {
      export: authedLimitedProcedure('passwordCheck')
        .meta({
          summary:
            'Everything the service holds about the account, as a JSON file (docs/account-export.schema.json). It needs a session that proved its password in the last 5 minutes, or `current_password` now (checked and counted like every password check; without it, a session that has not proved it lately is `422 password_recheck_required` on `current_password`). An account event, and a notice to the owner.',
          problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
        })
        .input(exportDataSchema)
        .output(accountExportSchema)
        .mutation(({ ctx, input }) => handOverCopy(ctx, ctx.auth, input.current_password)),
    },
  };
}
