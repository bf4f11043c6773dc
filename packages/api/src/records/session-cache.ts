import {
  authChangesOf,
  type AuthChange,
  type AuthChangeFeed,
  type Database,
  type Session,
  type User,
} from '@accounts/db';

export interface CachedSession {
  session: Session;
  user: User;
}

interface Entry extends CachedSession {
  /** performance.now() after which the database must be asked again. */
  until: number;
}

/** Enough for every session active in the last minute on a busy instance; the oldest go first. */
const MAX_ENTRIES = 10_000;

/**
 * Session checks the database answered within the last minute, so that `GET /users/me` and every
 * signed-in request need not ask it again. Exact, not merely short-lived: every change to a
 * session or an account is announced by the database (migration 0004) and drops that account's
 * entries before anyone can act on it, and while changes could go unheard (PostgreSQL's
 * notification connection is down) nothing is served from here. An entry never outlives the
 * session's expiry, its idle limit or the minute after which its last-seen time is written.
 */
export class SessionCache {
  readonly #entries = new Map<string, Entry>();
  readonly #keysByUser = new Map<string, Set<string>>();
  /** Bumped by every change: a lookup that overlapped one may have read what it replaced. */
  #generation = 0;
  /** Since the start: lookups answered from here, lookups that went to the database, entries a change dropped. */
  readonly #counts = { hits: 0, misses: 0, invalidations: 0 };

  constructor(private readonly feed: AuthChangeFeed) {
    feed.subscribe((change) => this.#drop(change));
  }

  get(key: string): CachedSession | undefined {
    const entry = this.#entries.get(key);
    if (entry && this.feed.live && performance.now() < entry.until) {
      this.#counts.hits++;
      return entry;
    }
    this.#counts.misses++;
    if (entry) this.#forget(key, entry.user.id);
    return undefined;
  }

  /** What the cache has done so far, for metrics (read only). */
  counts(): Readonly<{ hits: number; misses: number; invalidations: number; size: number }> {
    return { ...this.#counts, size: this.#entries.size };
  }

  /** Call before asking the database; pass the result to put(). */
  generation(): number {
    return this.#generation;
  }

  put(key: string, found: CachedSession, liveMs: number, generation: number): void {
    if (generation !== this.#generation || !this.feed.live || !(liveMs > 0)) return;
    if (this.#entries.size >= MAX_ENTRIES) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [string, Entry];
      this.#forget(oldestKey, oldest.user.id);
    }
    this.#entries.set(key, { ...found, until: performance.now() + liveMs });
    let keys = this.#keysByUser.get(found.user.id);
    if (!keys) this.#keysByUser.set(found.user.id, (keys = new Set()));
    keys.add(key);
  }

  #forget(key: string, userId: string) {
    this.#entries.delete(key);
    const keys = this.#keysByUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.#keysByUser.delete(userId);
  }

  #drop(change: AuthChange) {
    this.#generation++;
    if ('all' in change) {
      this.#counts.invalidations += this.#entries.size;
      this.#entries.clear();
      this.#keysByUser.clear();
      return;
    }
    for (const userId of change.userIds) {
      for (const key of this.#keysByUser.get(userId) ?? []) if (this.#entries.delete(key)) this.#counts.invalidations++;
      this.#keysByUser.delete(userId);
    }
  }
}

const caches = new WeakMap<Database, SessionCache | null>();

/** The cache of a database whose changes can be heard; none otherwise (every check asks it). */
export function sessionCacheOf(db: Database): SessionCache | null {
  let cache = caches.get(db);
  if (cache === undefined) {
    const feed = authChangesOf(db);
    caches.set(db, (cache = feed ? new SessionCache(feed) : null));
  }
  return cache;
}
