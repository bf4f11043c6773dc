import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const realms = pgTable('realms', {
  id: uuid('id').primaryKey().defaultRandom(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Canonical form from normalizeEmail(); the index below also guards against other spellings. */
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_realm_email_unique').on(t.realmId, sql`lower(btrim(${t.email}))`)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token, hex; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('sessions_user_idx').on(t.userId),
    // The retention purge finds expired and idle sessions by these.
    index('sessions_expires_idx').on(t.expiresAt),
    index('sessions_last_seen_idx').on(t.lastSeenAt),
  ],
);

export const accountEvents = pgTable(
  'account_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    /** Whose password-failure counter a failed check counts against: the user, or an unknown email's digest. */
    lockoutKey: text('lockout_key'),
    /** Which client a password check came from: a known device, a session, or an address (IPv6 by /64). */
    clientKey: text('client_key'),
    /** A password check still being hashed: not yet a failure or a success. */
    pending: boolean('pending').notNull().default(false),
    clientIp: text('client_ip'),
    createdAt: createdAt(),
  },
  (t) => [
    index('account_events_user_type_time_idx').on(t.userId, t.type, t.createdAt),
    index('account_events_lockout_idx').on(t.lockoutKey, t.createdAt),
    index('account_events_created_idx').on(t.createdAt),
  ],
);

/**
 * Browsers (and programs) that have signed in to an account before. The credential is a random
 * token held by the client; only its SHA-256 is stored. It grants nothing by itself: it only keeps
 * other clients' failed guesses from locking that client out.
 */
export const knownDevices = pgTable(
  'known_devices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('known_devices_user_idx').on(t.userId), index('known_devices_last_used_idx').on(t.lastUsedAt)],
);

export type Realm = typeof realms.$inferSelect;
export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
