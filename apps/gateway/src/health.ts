import type { DatabaseHandle } from '@accounts/db';
import type { FastifyInstance } from 'fastify';
import { notReady } from '@accounts/api';
import { sendProblem } from './problems.js';

const READY_TIMEOUT_MS = 1000;

export function registerHealth(app: FastifyInstance & { draining: boolean }, database: DatabaseHandle) {
  /** Liveness: the process answers. Never touches the database or the hashing pool. */
  app.get('/healthz', async () => ({ status: 'ok' }));

  /** Readiness: the database answers within a second and the process is not shutting down. */
  app.get('/readyz', async (req, reply) => {
    try {
      if (app.draining) throw new Error('shutting down');
      await Promise.race([
        database.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), READY_TIMEOUT_MS).unref()),
      ]);
      return { status: 'ready' };
    } catch {
      return sendProblem(req, reply, notReady());
    }
  });
}
