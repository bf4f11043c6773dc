import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecretKey, parseSecretKey } from '@accounts/api';
import { ConfigError, PEPPER_MIN_BYTES, type Config } from './config.js';

/** Where the embedded database keeps its generated SECRET_KEY (owner-only). */
export const SECRET_KEY_FILE = 'secret-key';
/** Where the embedded database keeps its generated PASSWORD_PEPPER (owner-only). */
export const PEPPER_FILE = 'password-pepper';

const MAKE_ONE = `make one with: node -e "console.log(crypto.randomBytes(32).toString('hex'))"`;

/**
 * A secret of the server: the configured one; with DATABASE_URL none is generated, since every
 * instance must share it; with the embedded database, one generated at first start and kept in
 * DATA_DIR (mode 0600; an in-memory database gets one that dies with it). Called once the data
 * directory is held, so two servers never write it at once.
 */
function keptSecret<T>(
  config: Config,
  name: string,
  file: string,
  parse: (text: string) => T | null,
): { value: T; generated?: string } {
  if (config.DATABASE_URL)
    throw new ConfigError(
      `Invalid configuration:\n  ${name}=unset: required with DATABASE_URL (every instance must share it); ${MAKE_ONE}`,
    );
  const fresh = newSecretKey();
  if (config.DATA_DIR.startsWith('memory://')) return { value: parse(fresh)! };
  const path = join(config.DATA_DIR, file);
  let kept: string | null = null;
  try {
    kept = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (kept !== null) {
    const value = parse(kept);
    if (value === null)
      throw new ConfigError(`${path} holds no valid ${name}: restore it from a backup, or set ${name}`);
    return { value };
  }
  mkdirSync(config.DATA_DIR, { recursive: true });
  writeFileSync(path, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
  return { value: parse(fresh)!, generated: path };
}

/** The SECRET_KEY this server uses (see keptSecret). */
export function secretKeyFor(config: Config): { key: Buffer; generated?: string } {
  if (config.SECRET_KEY) return { key: config.SECRET_KEY };
  const { value, generated } = keptSecret(config, 'SECRET_KEY', SECRET_KEY_FILE, parseSecretKey);
  return { key: value, generated };
}

/** The PASSWORD_PEPPER this server uses (see keptSecret). */
export function pepperFor(config: Config): { pepper: string; generated?: string } {
  if (config.PASSWORD_PEPPER) return { pepper: config.PASSWORD_PEPPER };
  const { value, generated } = keptSecret(config, 'PASSWORD_PEPPER', PEPPER_FILE, (text) => {
    const v = text.trim();
    return Buffer.byteLength(v) >= PEPPER_MIN_BYTES ? v : null;
  });
  return { pepper: value, generated };
}
