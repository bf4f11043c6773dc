import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';

/**
 * Which accounts' sessions or account rows changed: the ids, or every account. Migration 0004's
 * triggers send them on the `accounts_auth` channel once a change commits, whoever made it (this
 * server, another instance, an operator's command).
 */
export type AuthChange = { userIds: readonly string[] } | { all: true };

/**
 * The changes to sessions and accounts, for a server that keeps recent session checks in memory.
 * While `live` is false, changes may be going unheard, and nothing remembered may be trusted.
 */
export interface AuthChangeFeed {
  readonly live: boolean;
  /** Called on every change; with `{ all: true }` whenever hearing stops or starts again. */
  subscribe(listener: (change: AuthChange) => void): () => void;
  close(): Promise<void>;
}

export const AUTH_CHANNEL = 'accounts_auth';

const parse = (payload: string): AuthChange =>
  payload === '*' || !payload ? { all: true } : { userIds: payload.split(',') };

class Feed implements AuthChangeFeed {
  live = false;
  readonly #listeners = new Set<(change: AuthChange) => void>();

  subscribe(listener: (change: AuthChange) => void) {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
  emit(change: AuthChange) {
    for (const listener of this.#listeners) listener(change);
  }
  setLive(live: boolean) {
    this.live = live;
    this.emit({ all: true });
  }
  close = async () => {};
}

/** A feed that hears nothing: never live. */
export const unheardChanges = (): AuthChangeFeed => new Feed();

/**
 * PGlite delivers a notification while the statement (or the COMMIT) that caused it is still
 * returning, before the code that awaited it goes on: a change is heard before anyone can act on
 * it. One process owns the data directory, so nothing goes unheard.
 */
export async function pgliteAuthChanges(client: PGlite): Promise<AuthChangeFeed> {
  const feed = new Feed();
  const unlisten = await client.listen(AUTH_CHANNEL, (payload) => feed.emit(parse(payload)));
  feed.setLive(true);
  feed.close = async () => {
    feed.live = false;
    await unlisten().catch(() => {});
  };
  return feed;
}

/**
 * PostgreSQL delivers notifications on a connection of their own. While it is down (a restart,
 * a network cut) changes go unheard, so the feed is not live until it listens again. Changes made
 * by this process are also announced by `ownWrite`, when they commit: its next request may reach
 * the server before the notification does.
 */
export function postgresAuthChanges(url: string): AuthChangeFeed & { ownWrite: () => void } {
  const feed = Object.assign(new Feed(), { ownWrite: () => feed.emit({ all: true }) });
  let closing = false;
  // onnotify is an option of postgres.js (the one its own listen() uses) that its types leave out.
  const listener = postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    connect_timeout: 5,
    onnotice: () => {},
    onnotify: (_channel: string, payload: string) => feed.emit(parse(payload)),
    onclose: () => {
      if (feed.live) feed.setLive(false);
      if (!closing) void listen();
    },
  } as postgres.Options<Record<string, never>>);
  let listening: Promise<void> | null = null;
  const listen = () =>
    (listening ??= (async () => {
      while (!closing) {
        try {
          await listener.unsafe(`listen ${AUTH_CHANNEL}`);
          if (!closing) feed.setLive(true);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 1000).unref());
        }
      }
    })().finally(() => (listening = null)));
  void listen();
  feed.close = async () => {
    closing = true;
    feed.live = false;
    await listener.end({ timeout: 1 }).catch(() => {});
  };
  return feed;
}
