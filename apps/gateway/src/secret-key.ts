import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newSecretKey, parseSecretKey } from '@accounts/api';
import { ConfigError, type Config } from './config.js';

/** Where the embedded database keeps its generated SECRET_KEY (owner-only). */
export const SECRET_KEY_FILE = 'secret-key';

/**
 * The SECRET_KEY this server uses: the configured one; with DATABASE_URL none is generated,
 * since every instance must share it; with the embedded database, one generated at first start
 * and kept in DATA_DIR (an in-memory database gets a key that dies with it). Called once the
 * data directory is held, so two servers never write it at once.
 */
export function secretKeyFor(config: Config): { key: Buffer; generated?: string } {
  if (config.SECRET_KEY) return { key: config.SECRET_KEY };
  if (config.DATABASE_URL)
    throw new ConfigError(
      'Invalid configuration:\n  SECRET_KEY=unset: required with DATABASE_URL (every instance must share it); ' +
        `make one with: node -e "console.log(crypto.randomBytes(32).toString('hex'))"`,
    );
  if (config.DATA_DIR.startsWith('memory://')) return { key: randomBytes(32) };
  const file = join(config.DATA_DIR, SECRET_KEY_FILE);
  let kept: string | null = null;
  try {
    kept = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (kept !== null) {
    const key = parseSecretKey(kept);
    if (!key) throw new ConfigError(`${file} holds no valid SECRET_KEY: restore it from a backup, or set SECRET_KEY`);
    return { key };
  }
  const fresh = newSecretKey();
  mkdirSync(config.DATA_DIR, { recursive: true });
  writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' });
  return { key: parseSecretKey(fresh)!, generated: file };
}
