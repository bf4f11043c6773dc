import { addressGroup, type RateLimitedAction } from '@accounts/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from './config.js';

/** Counts a request against an action's limit, per client address, or per `key` when given (an account). */
export type Limiter = (req: FastifyRequest, action: RateLimitedAction, key?: string) => Promise<number | null>;

/**
 * Per-client-address limits on the actions that hash passwords (IPv6 counted by /64), and the
 * per-account and per-address limit on signed-in writes that record events, kept in
 * Redis when REDIS_URL is set (shared by every instance), else in this process. While Redis
 * cannot be reached, each instance counts in its own memory instead, so the limits never turn
 * off. The same limiter serves the form routes and /trpc, since both reach the same procedures.
 */
export function createRateLimits(
  app: FastifyInstance,
  config: Config,
  refused?: (action: RateLimitedAction) => void,
): { limit: Limiter; close(): Promise<void> } {
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, {
        connectTimeout: 1000,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
      })
    : undefined;
  let warned = false;
  redis?.on('error', (err) => {
    if (!warned) app.log.warn({ err: err.message }, 'redis unavailable; per-address limits fall back to this process');
    warned = true;
  });
  redis?.on('ready', () => {
    if (warned) app.log.info('redis reachable again; per-address limits shared');
    warned = false;
  });
  const maxOf: Record<RateLimitedAction, number> = {
    register: config.RATE_LIMIT_REGISTER,
    signIn: config.RATE_LIMIT_SIGN_IN,
    passwordCheck: config.RATE_LIMIT_PASSWORD_CHECK ?? config.RATE_LIMIT_CHANGE_PASSWORD,
    forgotPassword: config.RATE_LIMIT_FORGOT_PASSWORD,
    resendVerification: config.RATE_LIMIT_RESEND_VERIFICATION,
    accountWrite: config.RATE_LIMIT_ACCOUNT_WRITES,
    passkeyOptions: config.RATE_LIMIT_PASSKEY_OPTIONS,
    linkCheck: config.RATE_LIMIT_LINK_CHECK,
  };
  const duration = config.RATE_LIMIT_WINDOW_SECONDS;
  const limiters = Object.fromEntries(
    (Object.keys(maxOf) as RateLimitedAction[]).map((action) => {
      const opts = { points: maxOf[action], duration, keyPrefix: `accounts-rl:${action}` };
      const memory = new RateLimiterMemory(opts);
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory })
        : memory;
      return [action, limiter];
    }),
  ) as Record<RateLimitedAction, RateLimiterAbstract>;
  return {
    async limit(req, action, key) {
      if (maxOf[action] === 0) return null;
      try {
        await limiters[action].consume(key ?? addressGroup(req.ip ?? null));
        return null;
      } catch (res) {
        if (res instanceof RateLimiterRes) {
          refused?.(action);
          return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        }
        throw res;
      }
    },
    close: async () => void (await redis?.quit().catch(() => {})),
  };
}
