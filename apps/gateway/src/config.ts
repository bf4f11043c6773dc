import { isIP } from 'node:net';
import { defaultWorkers, parseSecretKey, PUBLIC_DEFAULT_PEPPER, SECRET_KEY_BYTES, type MailCap } from '@accounts/api';
import { PASSWORD_MIN_LENGTH_DEFAULT, PASSWORD_MIN_LENGTH_FLOOR } from '@accounts/validators';
import { z } from 'zod';

/** A pepper's minimum length in bytes, as for SECRET_KEY. */
export const PEPPER_MIN_BYTES = 32;

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): false | number | string[] => {
    if (v === 'false') return false;
    if (v === 'true') {
      // Fastify would then take the left-most X-Forwarded-For address, which the client writes.
      ctx.addIssue({
        code: 'custom',
        message:
          "true would believe any client-forged X-Forwarded-For; give the number of proxy hops in front (e.g. 1) or the proxies' addresses (e.g. 10.0.0.0/8)",
      });
      return z.NEVER;
    }
    if (/^\d+$/.test(v)) return Number(v);
    const list = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (list.length && list.every((a) => isIP(a.split('/')[0] ?? '') !== 0)) return list;
    ctx.addIssue({ code: 'custom', message: 'use false, a hop count, or a comma-separated list of proxy IPs/CIDRs' });
    return z.NEVER;
  });

const origins = z.string().transform((v, ctx) => {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of list) {
    let ok = false;
    try {
      ok = new URL(o).origin === o.replace(/\/$/, '');
    } catch {
      // Not a URL at all: ok stays false and the issue below names it.
    }
    if (!ok) ctx.addIssue({ code: 'custom', message: `"${o}" is not an origin like https://app.example.com` });
  }
  return list.map((o) => o.replace(/\/$/, ''));
});

/** The public origin of the default realm (other realms: their slug in front of its host), for links in mails. */
const publicUrl = z
  .string()
  .trim()
  .transform((v, ctx) => {
    try {
      const url = new URL(v);
      if (
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        url.pathname === '/' &&
        !url.search &&
        !url.username
      )
        return url.origin;
    } catch {
      // Not a URL at all: refused below, like a URL that is not a bare origin.
    }
    ctx.addIssue({ code: 'custom', message: 'must be an origin such as https://example.com' });
    return z.NEVER;
  });

/** SECRET_KEY: the key itself, never echoed (describeValue hides every *_KEY). */
const secretKey = z.string().transform((v, ctx) => {
  const key = parseSecretKey(v);
  if (key) return key;
  ctx.addIssue({
    code: 'custom',
    message: `must be ${SECRET_KEY_BYTES * 2} hex digits, or base64 of at least ${SECRET_KEY_BYTES} bytes (make one with: node -e "console.log(crypto.randomBytes(32).toString('hex'))")`,
  });
  return z.NEVER;
});

/** A list of earlier SECRET_KEYs (comma-separated), kept to open and verify what they made. */
const secretKeys = z.string().transform((v, ctx) => {
  const keys = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseSecretKey);
  if (keys.every((k) => k !== null)) return keys;
  ctx.addIssue({
    code: 'custom',
    message: `each (comma-separated) must be ${SECRET_KEY_BYTES * 2} hex digits, or base64 of at least ${SECRET_KEY_BYTES} bytes`,
  });
  return z.NEVER;
});

const pepperText = z
  .string()
  .refine((v) => Buffer.byteLength(v) >= PEPPER_MIN_BYTES, {
    message: `must be at least ${PEPPER_MIN_BYTES} bytes (make one with: node -e "console.log(crypto.randomBytes(32).toString('hex'))")`,
  })
  .refine((v) => v !== PUBLIC_DEFAULT_PEPPER, {
    message:
      'is the public default of earlier versions: set a secret one (hashes made with it still verify: docs/operations.md)',
  });

/** PASSWORD_PEPPER_PREVIOUS: earlier peppers (comma-separated), kept to verify the hashes they made. */
const peppers = z.string().transform((v, ctx) => {
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The public default may be listed: hashes made with it are still verified (and re-hashed).
  if (list.every((p) => Buffer.byteLength(p) >= PEPPER_MIN_BYTES)) return list;
  ctx.addIssue({ code: 'custom', message: `each (comma-separated) must be at least ${PEPPER_MIN_BYTES} bytes` });
  return z.NEVER;
});

const pgUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\/./.test(v), { message: 'must be a postgres:// or postgresql:// URL' });

/** Every setting the service takes, all from the environment (documented in the README). */
export const envSchema = z
  .object({
    PORT: int(0, 65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    // GET /metrics (Prometheus) on a listener of its own, on HOST; unset: no metrics at all.
    METRICS_PORT: int(0, 65535).optional(),
    // Traces (OpenTelemetry, OTLP over HTTP) go to this collector; unset: the SDK is not even loaded.
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s):// URL' }).optional(),
    OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).default('accounts-gateway'),
    DATABASE_URL: pgUrl.optional(),
    // The role that may change the schema: migrations run with it at start-up (docs/operations.md, "Roles").
    DATABASE_MIGRATION_URL: pgUrl.optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    // How long to wait for DATA_DIR's lock (a killed predecessor's goes stale within seconds); unset:
    // the server waits 15 s, a CLI command not at all (see server.ts and cli.ts).
    DATA_DIR_LOCK_WAIT_MS: int(0, 600_000).optional(),
    // Unset: the migrations shipped beside the build (or the source tree's packages/db/migrations).
    MIGRATIONS_DIR: z.string().min(1).optional(),
    ROOT_DOMAIN: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, { message: 'must be a host name such as example.com or localhost' })
      .default('localhost'),
    BCRYPT_COST: int(4, 16).default(11),
    PASSWORD_MIN_LENGTH: int(PASSWORD_MIN_LENGTH_FLOOR, 64).default(PASSWORD_MIN_LENGTH_DEFAULT),
    // Seals authenticator-app secrets and digests recovery codes. Unset: generated into DATA_DIR
    // for the embedded database, required with DATABASE_URL (see secret-key.ts).
    SECRET_KEY: secretKey.optional(),
    SECRET_KEY_PREVIOUS: secretKeys.default([]),
    // The pre-hash's HMAC key. Unset: generated into DATA_DIR for the embedded database, required
    // with DATABASE_URL (see secret-key.ts). Earlier ones stay verifiable through PASSWORD_PEPPER_PREVIOUS.
    PASSWORD_PEPPER: pepperText.optional(),
    PASSWORD_PEPPER_PREVIOUS: peppers.default([]),
    // Always Secure, __Host- cookies and HSTS, whatever a request's scheme looks like (also implied by an https PUBLIC_URL).
    COOKIE_SECURE: bool.default(false),
    // production: mail must go out by SMTP_URL unless MAIL_TRANSPORT=log says otherwise on purpose.
    NODE_ENV: z.string().trim().optional(),
    MAIL_TRANSPORT: z.enum(['smtp', 'log']).optional(),
    TRUSTED_ORIGINS: origins.default([]),
    TRUST_PROXY: trustProxy.default(false),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HASH_WORKERS: int(1, 256).default(defaultWorkers()),
    HASH_QUEUE_MAX: int(0, 100_000).optional(),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, { message: 'must be a redis:// URL' })
      .optional(),
    RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(600),
    RATE_LIMIT_REGISTER: int(0, 1_000_000).default(20),
    RATE_LIMIT_SIGN_IN: int(0, 1_000_000).default(30),
    // Every call but sign-in that checks the account's password or hashes a new one (13 procedures);
    // RATE_LIMIT_CHANGE_PASSWORD is its older name, read when the new one is not set.
    RATE_LIMIT_PASSWORD_CHECK: int(0, 1_000_000).optional(),
    RATE_LIMIT_CHANGE_PASSWORD: int(0, 1_000_000).default(10),
    RATE_LIMIT_ACCOUNT_WRITES: int(0, 1_000_000).default(30),
    // Every sign-in page a browser shows asks for passkey options (autofill): far more than sign-ins.
    RATE_LIMIT_PASSKEY_OPTIONS: int(0, 1_000_000).default(300),
    RATE_LIMIT_LINK_CHECK: int(0, 1_000_000).default(60),
    ACCOUNT_MAX_FAILURES: int(1, 1000).default(5),
    ACCOUNT_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(900),
    ACCOUNT_FAILURE_CAP: int(1, 100_000).default(100),
    ACCOUNT_CAP_WINDOW_HOURS: int(1, 24 * 30).default(24),
    KNOWN_DEVICE_DAYS: int(1, 3650).default(365),
    SESSION_TTL_HOURS: int(1, 24 * 365).default(24 * 30),
    SESSION_IDLE_HOURS: int(1, 24 * 365).default(24 * 7),
    SESSION_CACHE: bool.default(true),
    SHUTDOWN_TIMEOUT_SECONDS: int(1, 600).default(10),
    SERVE_WEB: bool.default(true),
    // Unset: the web app's build beside the gateway in the monorepo (apps/web/dist).
    WEB_DIST_DIR: z.string().min(1).optional(),
    // The service's name, in the header, page titles, mail and authenticator apps, and the name
    // an unnamed default realm goes by. PRODUCT_NAME is its older name, still read.
    SERVICE_NAME: z.string().trim().min(1).max(80).optional(),
    PRODUCT_NAME: z.string().trim().min(1).max(80).optional(),
    HSTS_MAX_AGE_SECONDS: int(0, 2 * 31_536_000).default(31_536_000),
    REQUEST_TIMEOUT_SECONDS: int(1, 600).default(30),
    HEADERS_TIMEOUT_SECONDS: int(1, 600).default(10),
    IDLE_TIMEOUT_SECONDS: int(1, 3600).default(72),
    MAX_CONNECTIONS: int(1, 1_000_000).default(800),
    EVENT_RETENTION_DAYS: int(1, 3650).default(90),
    PURGE_INTERVAL_SECONDS: int(0, 86_400).default(3600),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/./, { message: 'must be an smtp:// or smtps:// URL' })
      .optional(),
    MAIL_FROM: z.string().trim().min(3).max(320).default('Accounts <no-reply@localhost>'),
    PUBLIC_URL: publicUrl.optional(),
    // Without PUBLIC_URL, links are <scheme>://<realm>.<ROOT_DOMAIN>:<port>, all from here: never from a request.
    PUBLIC_SCHEME: z.enum(['http', 'https']).default('http'),
    PUBLIC_PORT: int(1, 65535).optional(),
    MAIL_POLL_MS: int(0, 600_000).default(1000),
    // Calls to the apps (back-channel logout) may reach loopback and private addresses: for tests
    // and private networks only; otherwise such an address is refused at connect.
    ALLOW_PRIVATE_OUTBOUND: bool.default(false),
    MAIL_MAX_ATTEMPTS: int(1, 100).default(8),
    MAIL_RETRY_BASE_SECONDS: int(1, 3600).default(30),
    MAIL_RESET_LINK_MINUTES: int(5, 24 * 60).default(30),
    MAIL_VERIFY_LINK_HOURS: int(1, 24 * 30).default(24),
    RATE_LIMIT_FORGOT_PASSWORD: int(0, 1_000_000).default(10),
    RATE_LIMIT_RESEND_VERIFICATION: int(0, 1_000_000).default(5),
    // The mail cap per address (mail/outbox.ts): links a person asks for to it (reset, verification),
    // and, counted apart, mail other people's actions cause (change-of-address mail, notices).
    RATE_LIMIT_MAIL_PER_EMAIL: int(0, 1_000_000).default(3),
    MAIL_RECIPIENT_CAP: int(0, 1_000_000).default(10),
  })
  .superRefine((env, ctx) => {
    // Without SMTP every mail (link and recipient) goes to the log: never by default in production.
    if (env.NODE_ENV === 'production' && !env.SMTP_URL && env.MAIL_TRANSPORT !== 'log') {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_URL'],
        message:
          'required with NODE_ENV=production (mail would otherwise be written to the log, links included); set MAIL_TRANSPORT=log to log mail on purpose',
      });
    }
    if (env.MAIL_TRANSPORT === 'smtp' && !env.SMTP_URL) {
      ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'required with MAIL_TRANSPORT=smtp' });
    }
  });

export type Config = z.output<typeof envSchema>;

/** The service's name: SERVICE_NAME, else its older name PRODUCT_NAME, else "Accounts". */
export const serviceNameOf = (config: Config) => config.SERVICE_NAME ?? config.PRODUCT_NAME ?? 'Accounts';

/** Whether cookies are always Secure and __Host- prefixed, with HSTS on every answer: set, or implied by an https PUBLIC_URL. */
export const alwaysSecure = (config: Config) =>
  config.COOKIE_SECURE || config.PUBLIC_URL?.startsWith('https:') === true;

/** The caps on mail to one address, each kind counted apart (the server's and the account command's alike). */
export const mailCapFrom = (config: Config): MailCap => ({
  requested: config.RATE_LIMIT_MAIL_PER_EMAIL,
  caused: config.MAIL_RECIPIENT_CAP,
  windowMs: config.RATE_LIMIT_WINDOW_SECONDS * 1000,
});

export class ConfigError extends Error {}

/** Variables whose whole value is a secret: an error names them but never shows the value. */
const SECRET_NAME = /PEPPER|SECRET|TOKEN|PASSWORD$|_KEY$/;

/**
 * How a bad value is shown in an error: secrets not at all, URLs without their password
 * (postgres://app:***@db/accounts), anything else as given.
 */
export function describeValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'unset';
  if (SECRET_NAME.test(name)) return `(secret, ${[...value].length} characters, not shown)`;
  if (name.endsWith('_URL')) {
    try {
      const url = new URL(value);
      if (url.host) {
        if (url.password) url.password = '***';
        return JSON.stringify(url.href);
      }
    } catch {
      // Not a URL: handled below, as one without a host.
    }
    // Without a host, where a password would be cannot be told: show nothing of it.
    return '(not a URL, not shown)';
  }
  return JSON.stringify(value);
}

/** Parses the environment; a bad value names the variable and what it must be. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const name = String(i.path[0]);
    return `  ${name}=${describeValue(name, present[name])}: ${i.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}
