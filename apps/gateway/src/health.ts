import type { FastifyInstance } from 'fastify';
import { databaseAnswers, notReady, type Database } from '@accounts/api';
import { sendProblem } from './problems.js';

const READY_TIMEOUT_MS = 1000;

export function registerHealth(app: FastifyInstance & { draining: boolean }, database: { db: Database }) {
  /** Liveness: the process answers. Never touches the database or the hashing pool. */
  app.get('/healthz', () => ({ status: 'ok' }));

  /** Readiness: the database answers within a second and the process is not shutting down. */
  app.get('/readyz', async (req, reply) => {
    try {
      if (app.draining) throw new Error('shutting down');
      await databaseAnswers(database.db, READY_TIMEOUT_MS);
      return { status: 'ready' };
    } catch {
      return sendProblem(req, reply, notReady());
    }
  });
}
