import { createRefusalRecorder, type Database, type RefusalType } from '@accounts/api';
import type { FastifyRequest } from 'fastify';
import { setupPlugin } from './setup-plugin.js';
import { sessionTokenOf } from '../session-transport.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The problem code the request was refused with (problems.ts and the tRPC route note it). */
    problemCode?: string;
    /** The account the request acted as (its session's), for the access log and refusal events. */
    accountId?: string;
  }
}

/** Which refusals are recorded as account events, and as what (api/src/refusal-events.ts bounds them). */
function refusalOf(req: FastifyRequest): RefusalType | null {
  switch (req.problemCode) {
    case 'rate_limited':
      return 'rate_limited';
    case 'cross_origin':
      return 'cross_origin_refused';
    case 'reset_token_invalid':
    case 'verify_token_invalid':
    case 'email_change_token_invalid':
      return 'token_invalid';
    case 'unauthenticated':
      // Only a presented session token that is not (or no longer) valid: a page asking whether
      // anyone is signed in is no attempt at anything.
      return sessionTokenOf(req) ? 'token_invalid' : null;
    default:
      return null;
  }
}

/** Records refused requests as account events once answered, off the request's path. */
export default setupPlugin<{ db: Database }>('refusals', (app, { db }) => {
  const record = createRefusalRecorder(db);
  app.addHook('onResponse', (req, _reply, done) => {
    const type = refusalOf(req);
    if (type && req.realm) {
      const src = {
        realmId: req.realm.id,
        clientIp: req.ip ?? null,
        userAgent: req.headers['user-agent'] ?? null,
        requestId: req.id,
      };
      record(src, type, req.accountId ?? null).catch((err: unknown) =>
        req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'refusal not recorded'),
      );
    }
    done();
  });
});
