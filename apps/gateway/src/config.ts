import { isIP } from 'node:net';
import { defaultWorkers } from '@accounts/api';
import { PASSWORD_MIN_LENGTH_DEFAULT, PASSWORD_MIN_LENGTH_FLOOR } from '@accounts/validators';
import { z } from 'zod';

/** Used when PASSWORD_PEPPER is unset; the server warns at start-up, since a pepper should be secret. */
export const DEFAULT_PEPPER = 'accounts-default-pepper-set-PASSWORD_PEPPER';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string[] => {
    if (v === 'true' || v === 'false') return v === 'true';
    if (/^\d+$/.test(v)) return Number(v);
    const list = v.split(',').map((s) => s.trim()).filter(Boolean);
    if (list.length && list.every((a) => isIP(a.split('/')[0] ?? '') !== 0)) return list;
    ctx.addIssue({ code: 'custom', message: 'use true, false, a hop count, or a comma-separated list of proxy IPs/CIDRs' });
    return z.NEVER;
  });

const origins = z
  .string()
  .transform((v, ctx) => {
    const list = v.split(',').map((s) => s.trim()).filter(Boolean);
    for (const o of list) {
      let ok = false;
      try {
        ok = new URL(o).origin === o.replace(/\/$/, '');
      } catch {}
      if (!ok) ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin like https://app.example.com` });
    }
    return list.map((o) => o.replace(/\/$/, ''));
  });

const pgUrl = z.string().refine((v) => /^postgres(ql)?:\/\/./.test(v), { message: 'must be a postgres:// or postgresql:// URL' });

/** Every setting the service takes, all from the environment (documented in the README). */
export const envSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: pgUrl.optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  ROOT_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, { message: 'must be a host name such as example.com or localhost' })
    .default('localhost'),
  BCRYPT_COST: int(4, 16).default(11),
  PASSWORD_MIN_LENGTH: int(PASSWORD_MIN_LENGTH_FLOOR, 64).default(PASSWORD_MIN_LENGTH_DEFAULT),
  PASSWORD_PEPPER: z.string().min(16, { message: 'must be at least 16 characters' }).default(DEFAULT_PEPPER),
  TRUSTED_ORIGINS: origins.default([]),
  TRUST_PROXY: trustProxy.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HASH_WORKERS: int(1, 256).default(defaultWorkers()),
  HASH_QUEUE_MAX: int(0, 100_000).optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, { message: 'must be a redis:// URL' }).optional(),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(600),
  RATE_LIMIT_REGISTER: int(0, 1_000_000).default(20),
  RATE_LIMIT_SIGN_IN: int(0, 1_000_000).default(30),
  RATE_LIMIT_CHANGE_PASSWORD: int(0, 1_000_000).default(10),
  ACCOUNT_MAX_FAILURES: int(1, 1000).default(5),
  ACCOUNT_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(900),
  SESSION_TTL_HOURS: int(1, 24 * 365).default(24 * 30),
  SESSION_IDLE_HOURS: int(1, 24 * 365).default(24 * 7),
  SHUTDOWN_TIMEOUT_SECONDS: int(1, 600).default(10),
  SERVE_WEB: bool.default(true),
});

export type Config = z.output<typeof envSchema>;

export class ConfigError extends Error {}

/** Parses the environment; a bad value names the variable and what it must be. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}=${JSON.stringify(present[String(i.path[0])])}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}
