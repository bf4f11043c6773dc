import { claimDueLogouts, findRealmById, logoutDone, logoutFailed, type Database, type Realm } from '@accounts/api';
import type { FastifyInstance } from 'fastify';
import { startOutboxLoop } from '../outbox-loop.js';
import type { RealmProvider } from './provider.js';

// The back-channel logout sender: every second it claims due rows of the logout outbox
// (oidc_logouts; SKIP LOCKED, so gateways sharing a database never take the same one) and has
// the realm's provider sign and post each logout token. A failure is retried with back-off and
// given up after the last attempt (logged). The tokens of the ended session are already inactive
// by then: the sender only tells the apps.

const POLL_MS = 1000;
/** Rows claimed per round; a full round is followed at once by the next. */
const BATCH = 20;

export function startLogoutSender(
  app: FastifyInstance & { draining: boolean },
  db: Database,
  providerOf: (realm: Realm) => Promise<RealmProvider>,
) {
  const round = async (): Promise<number> => {
    const rows = await claimDueLogouts(db, BATCH);
    for (const row of rows) {
      const where = { logout: { id: row.id, realm: row.realmId, client: row.clientId, attempt: row.attempts } };
      try {
        const realm = await findRealmById(db, row.realmId);
        const sent = realm ? await (await providerOf(realm)).sendLogout(row.clientId, row.subject, row.sid) : 'none';
        await logoutDone(db, row.id);
        if (sent === 'sent') app.log.info(where, 'back-channel logout delivered');
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        const gaveUp = await logoutFailed(db, row);
        if (gaveUp) app.log.error({ ...where, err: error }, 'back-channel logout given up after the last attempt');
        else app.log.warn({ ...where, err: error }, 'back-channel logout failed; will retry');
      }
    }
    return rows.length;
  };

  startOutboxLoop(app, {
    round: async () => (await round()) === BATCH,
    pollMs: POLL_MS,
    unreachable: 'logout outbox unreachable; will retry',
  });
}
