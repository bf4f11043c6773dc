import rateLimit from '@fastify/rate-limit';
import type { RateLimitedAction } from '@accounts/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';

export type Limiter = (req: FastifyRequest, action: RateLimitedAction) => Promise<number | null>;

/**
 * Per-client-address limits on the actions that hash passwords, counted in Redis when
 * REDIS_URL is set (shared by every instance), else in this process. The same limiter
 * serves the form routes and /trpc, since both reach the same procedures.
 */
export async function registerRateLimits(app: FastifyInstance, config: Config): Promise<{ limit: Limiter; close(): Promise<void> }> {
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    : undefined;
  redis?.on('error', (err) => app.log.warn({ err: err.message }, 'redis unavailable; rate limits fail open'));
  await app.register(rateLimit, { global: false, redis, skipOnError: true, nameSpace: 'accounts-rl:' });
  const maxOf: Record<RateLimitedAction, number> = {
    register: config.RATE_LIMIT_REGISTER,
    signIn: config.RATE_LIMIT_SIGN_IN,
    changePassword: config.RATE_LIMIT_CHANGE_PASSWORD,
  };
  const checks = Object.fromEntries(
    (Object.keys(maxOf) as RateLimitedAction[]).map((action) => [
      action,
      app.createRateLimit({
        max: maxOf[action],
        timeWindow: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
        keyGenerator: (req: FastifyRequest) => `${action}:${req.ip}`,
      }),
    ]),
  ) as Record<RateLimitedAction, ReturnType<FastifyInstance['createRateLimit']>>;
  return {
    async limit(req, action) {
      if (maxOf[action] === 0) return null;
      const r = await checks[action](req);
      return !r.isAllowed && r.isExceeded ? Math.max(1, r.ttlInSeconds) : null;
    },
    close: async () => void (await redis?.quit().catch(() => {})),
  };
}
