import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const realms = pgTable(
  'realms',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    slug: text('slug').notNull().unique(),
    /** The display name an operator gave it; none for the default realm until one is given
     *  (people then see the service's name, SERVICE_NAME). */
    name: text('name'),
    /** When on, an account must have confirmed its address before it may sign in. */
    requireVerifiedEmail: boolean('require_verified_email').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [check('realms_named_unless_default', sql`${t.name} IS NOT NULL OR ${t.slug} = 'default'`)],
);

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
    /**
     * When the account's credentials last changed hands or state: its password (changed or reset),
     * a second factor turned on or off, an operator's disable, revoke-sessions or second-factor
     * reset. A mailed link issued before it no longer works (tokens.ts).
     */
    credentialsChangedAt: timestamp('credentials_changed_at', { withTimezone: true }).notNull().defaultNow(),
    /** When the owner followed a verification link; null while the address is unconfirmed. */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    /** Set by an operator: a disabled account cannot sign in and has no sessions. */
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** The language the owner last used (registration, sign-in): mails to them are written in it. */
    locale: text('locale').notNull().default('en'),
    /**
     * A sign-in needs a second step (an authenticator app is on). Kept with the account so the
     * hot session check knows it without a query; written only by two-step.ts, from the tables below.
     */
    twoStep: boolean('two_step').notNull().default(false),
    /** The account's WebAuthn user handle: random, made at its first passkey, never the email. */
    passkeyHandle: text('passkey_handle').unique(),
    /**
     * What the apps it signs in to know it by (OpenID Connect's `sub`): random, never the email,
     * never changed and never given to another account (a deleted account's goes with it).
     */
    subject: uuid('subject').notNull().unique().defaultRandom(),
    /**
     * When the owner dismissed the account page's suggestion to add a passkey or two-step sign-in
     * (null: never). Kept with the account, so it stays dismissed on every device, with or without scripts.
     */
    secondFactorSuggestionDismissedAt: timestamp('second_factor_suggestion_dismissed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_realm_email_unique').on(t.realmId, sql`lower(btrim(${t.email}))`)],
);

/** The account a row belongs to: it goes with the account. */
const ownedBy = () =>
  uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownedBy(),
    /** SHA-256 of the token, hex; the token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The User-Agent and address the session began with, to describe the device to its owner. */
    userAgent: text('user_agent'),
    clientIp: text('client_ip'),
    /** When this session last proved the password (its sign-in, or a re-check); null after a passkey sign-in. */
    passwordCheckedAt: timestamp('password_checked_at', { withTimezone: true }),
    /** When this session last proved a second factor (its sign-in's second step, a passkey, a re-check); null if never. */
    factorCheckedAt: timestamp('factor_checked_at', { withTimezone: true }),
    /**
     * How the session signed in, as RFC 8176 method references (`pwd`, `otp`, `hwk`, `swk`, `mfa`):
     * what the apps it signs in to are told. Null for sessions from before it was kept.
     */
    amr: jsonb('amr').$type<string[]>(),
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
    /** What the activity page shows as the event's id (and its cursor): random, so it tells nothing of other accounts' events. */
    publicId: uuid('public_id').notNull().defaultRandom(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    /**
     * Null once the account is deleted: its events stay for the retention window (append-only,
     * migration 0009), tied to it only by subjectDigest.
     */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** A deleted account's keyed email digest (SECRET_KEY), so its events can still be found by its address. */
    subjectDigest: text('subject_digest'),
    /** The request the event came from (the access log's reqId), to join the two. */
    requestId: text('request_id'),
    type: text('type').notNull(),
    /** Whose password-failure counter a failed check counts against: the user, or an unknown email's digest. */
    lockoutKey: text('lockout_key'),
    /** Which client a password check came from: a known device, a session, or an address (IPv6 by /64). */
    clientKey: text('client_key'),
    /** A password check still being hashed: not yet a failure or a success. */
    pending: boolean('pending').notNull().default(false),
    clientIp: text('client_ip'),
    userAgent: text('user_agent'),
    /** The app (OpenID Connect client) an event is about (signed in to, access removed): its client_id, and its name then. */
    appClientId: text('app_client_id'),
    appName: text('app_name'),
    createdAt: createdAt(),
  },
  (t) => [
    index('account_events_user_type_time_idx').on(t.userId, t.type, t.createdAt),
    index('account_events_lockout_idx').on(t.lockoutKey, t.createdAt),
    index('account_events_created_idx').on(t.createdAt),
    // Refusals are recorded a bounded number of times per client and window (refusal-events.ts).
    index('account_events_client_type_time_idx').on(t.clientKey, t.type, t.createdAt),
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
    userId: ownedBy(),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('known_devices_user_idx').on(t.userId), index('known_devices_last_used_idx').on(t.lastUsedAt)],
);

/**
 * Single-use links sent by mail (password reset, address verification, change of address). Only the SHA-256 of the
 * 256-bit token is stored; a token is bound to its realm and account and dies when used or replaced.
 */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    userId: ownedBy(),
    /** 'reset_password' | 'verify_email' | 'change_email' */
    purpose: text('purpose').notNull(),
    /** A change of address: the address it moves the account to (normalized), confirmed by this link. */
    newEmail: text('new_email'),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('account_tokens_user_purpose_idx').on(t.userId, t.purpose),
    index('account_tokens_expires_idx').on(t.expiresAt),
  ],
);

/**
 * The transactional outbox: a mail is written in the same transaction as the event that causes
 * it, and a background sender delivers it (claimed with FOR UPDATE SKIP LOCKED, retried with back-off).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    recipient: text('recipient').notNull(),
    /** Which mail: 'reset_password', 'verify_email', 'password_changed', 'new_sign_in', … */
    template: text('template').notNull(),
    locale: text('locale').notNull(),
    /** What the template needs (links, times, addresses); cleared once the mail is sent. */
    payload: jsonb('payload').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    failedAt: timestamp('failed_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('mail_outbox_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.sentAt} is null and ${t.failedAt} is null`),
  ],
);

/**
 * Every mail queued to an address, by a digest of the address alone (never the address): the
 * per-recipient cap counts these rows, so every instance sees the same count and deleting or
 * re-registering an account does not reset it. Rows older than the cap's window are purged.
 */
export const mailSends = pgTable(
  'mail_sends',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    recipientKey: text('recipient_key').notNull(),
    /**
     * Which cap counts it: 'requested' (a link the address's own person asks for: reset,
     * verification) or 'caused' (mail other people's actions cause: change-of-address
     * confirmations and attempts, notices). Counted apart, so one never spends the other's room.
     */
    kind: text('kind').notNull().default('caused'),
    createdAt: createdAt(),
  },
  (t) => [
    index('mail_sends_recipient_kind_time_idx').on(t.recipientKey, t.kind, t.createdAt),
    index('mail_sends_created_idx').on(t.createdAt),
  ],
);

/**
 * An account's authenticator app (RFC 6238). Secrets are sealed with AES-256-GCM under SECRET_KEY,
 * bound to the account (api/src/kernel/vault.ts): a dump of the database holds no secret in clear.
 */
export const totpCredentials = pgTable('totp_credentials', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** The active secret; null while only a set-up is pending. */
  secret: text('secret'),
  /** A secret handed out by a set-up and not yet confirmed with a code. */
  pendingSecret: text('pending_secret'),
  /** The last time step a code was accepted for: codes of it or earlier are refused (no replay). */
  lastStep: bigint('last_step', { mode: 'number' }).notNull().default(0),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  createdAt: createdAt(),
});

/** Single-use recovery codes: only a keyed digest of each (HMAC under SECRET_KEY) is stored. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownedBy(),
    digest: text('digest').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('recovery_codes_user_digest_unique').on(t.userId, t.digest)],
);

/**
 * A sign-in whose password was right and whose second step is still to come. The client holds a
 * random token (cookie or body); only its SHA-256 is stored. Bound to the realm, it dies when it
 * expires, when it is used, after too many wrong codes, and when the password changes.
 */
export const pendingSignIns = pgTable(
  'pending_sign_ins',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    userId: ownedBy(),
    tokenHash: text('token_hash').notNull().unique(),
    /** What the first step proved (RFC 8176): the password's `pwd`, or nothing for an upstream provider's. */
    firstAmr: jsonb('first_amr').$type<string[]>().notNull().default(['pwd']),
    failures: integer('failures').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('pending_sign_ins_user_idx').on(t.userId), index('pending_sign_ins_expires_idx').on(t.expiresAt)],
);

/**
 * An account's passkeys (WebAuthn credentials). The relying party is the realm's host, so a
 * credential only ever works in its account's realm.
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownedBy(),
    /** The credential ID, base64url. */
    credentialId: text('credential_id').notNull().unique(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    /** The authenticator's signature counter (0 when it keeps none). */
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    aaguid: text('aaguid').notNull(),
    /** 'singleDevice' | 'multiDevice' */
    deviceType: text('device_type').notNull(),
    backedUp: boolean('backed_up').notNull(),
    /** What the owner calls it. */
    name: text('name').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [index('passkeys_user_idx').on(t.userId)],
);

/**
 * A WebAuthn ceremony begun and not yet finished: its challenge, single-use, bound to the realm
 * and the ceremony (and to the account or the pending sign-in it is for), dead after 5 minutes.
 * Kept in the database so any instance can finish what another began.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: uuid('realm_id')
      .notNull()
      .references(() => realms.id, { onDelete: 'cascade' }),
    /** 'register' | 'sign_in' | 'second_step' */
    ceremony: text('ceremony').notNull(),
    challenge: text('challenge').notNull().unique(),
    /** The account a registration or a second step is for; null for a passwordless sign-in. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('webauthn_challenges_expires_idx').on(t.expiresAt)],
);

/**
 * The audit trail's retention, one row, written only by the table's owner (the migration role,
 * at start-up: migration 0010): accounts_purge_events() never deletes an event younger than it,
 * whatever cutoff its caller passes.
 */
export const auditSettings = pgTable('audit_settings', {
  id: boolean('id').primaryKey().default(true),
  eventRetentionDays: integer('event_retention_days').notNull().default(90),
});

/** The realm a row of the OpenID Connect provider belongs to: it goes with the realm. */
const inRealm = () =>
  uuid('realm_id')
    .notNull()
    .references(() => realms.id, { onDelete: 'cascade' });

/**
 * The apps registered to sign people in with a realm's accounts (OpenID Connect clients), by an
 * operator (npm run client). A confidential client's secret is stored only as its SHA-256.
 */
export const oidcClients = pgTable(
  'oidc_clients',
  {
    realmId: inRealm(),
    /** Random, and what the app sends as `client_id`. */
    clientId: text('client_id').notNull(),
    /** The app's name, shown to people on the consent page. */
    name: text('name').notNull(),
    /** SHA-256 (hex) of the 256-bit secret; null for a public client (PKCE alone). */
    secretDigest: text('secret_digest'),
    /** Exact redirect URIs: https, or http on a loopback host only. */
    redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
    postLogoutRedirectUris: jsonb('post_logout_redirect_uris').$type<string[]>().notNull().default([]),
    backchannelLogoutUri: text('backchannel_logout_uri'),
    /** A single-page or native app: no secret, PKCE alone. */
    public: boolean('public').notNull().default(false),
    /** The service's own app: people are not asked to consent. */
    firstParty: boolean('first_party').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.realmId, t.clientId] })],
);

/**
 * What the OpenID Connect provider keeps (its adapter's models: grants, codes, tokens, its
 * sessions and interactions), one row per realm, model and id, the payload as the provider
 * gives it. An id that is a bearer (a code, a token, a session or interaction cookie) is kept
 * only as its SHA-256 digest, and the payload without it. Codes and refresh tokens are consumed
 * in place, once (consumed_at); rows past expires_at are never found and are purged with the rest.
 */
export const oidcArtifacts = pgTable(
  'oidc_artifacts',
  {
    realmId: inRealm(),
    /** The provider's model: 'AuthorizationCode', 'RefreshToken', 'Grant', 'Session', … */
    kind: text('kind').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** The grant a code or token belongs to (revoked together). */
    grantId: text('grant_id'),
    /** A provider session's fixed uid. */
    uid: text('uid'),
    /** A device code's user code. */
    userCode: text('user_code'),
    /** The account (its subject) and the app a row is about, to find an account's grants. */
    accountId: text('account_id'),
    clientId: text('client_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    consumedAt: timestamp('consumed_at', { withTimezone: true }),
    /**
     * A rotated refresh token's successor, sealed under SECRET_KEY: what a repeat of the rotated
     * token gets within the grace period, instead of a second successor.
     */
    successor: text('successor'),
    /**
     * The session here that a provider session, and every code and token that ends with it,
     * belongs to. When that session ends (for any reason) a trigger on sessions deletes those
     * codes and tokens and tells the apps the provider session signed in to (the oidc_logouts
     * outbox); the provider session stays, unbound, and asks for a sign-in at its next use.
     */
    sessionId: uuid('session_id').references(() => sessions.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.realmId, t.kind, t.id] }),
    index('oidc_artifacts_session_idx').on(t.sessionId),
    index('oidc_artifacts_grant_idx').on(t.realmId, t.grantId),
    index('oidc_artifacts_uid_idx').on(t.realmId, t.uid),
    index('oidc_artifacts_user_code_idx').on(t.realmId, t.userCode),
    index('oidc_artifacts_account_idx').on(t.realmId, t.accountId, t.kind),
    index('oidc_artifacts_expires_idx').on(t.expiresAt),
  ],
);

/**
 * Back-channel logouts to deliver (OpenID Connect Back-Channel Logout 1.0): one row per app to
 * tell that a session of an account ended, written in the transaction that ended it, sent by a
 * background sender of any gateway (claimed with SKIP LOCKED) and deleted once delivered or
 * given up.
 */
export const oidcLogouts = pgTable(
  'oidc_logouts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    realmId: inRealm(),
    clientId: text('client_id').notNull(),
    /** The account's subject, and the provider session's id for that app (the token's sid). */
    subject: text('subject').notNull(),
    sid: text('sid'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [index('oidc_logouts_due_idx').on(t.nextAttemptAt)],
);

/**
 * A realm's keys signing its ID tokens (RS256), made at the first use, the private JWK sealed
 * under SECRET_KEY. One is current (retired_at null); a retired key stays published until every
 * token it signed has expired, then is purged.
 */
export const oidcSigningKeys = pgTable(
  'oidc_signing_keys',
  {
    realmId: inRealm(),
    kid: text('kid').notNull(),
    /** The private JWK as JSON, sealed by the vault for this realm and kid. */
    privateJwk: text('private_jwk').notNull(),
    createdAt: createdAt(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.realmId, t.kid] }),
    // One current key per realm: two gateways making the first at once keep one.
    uniqueIndex('oidc_signing_keys_current_unique')
      .on(t.realmId)
      .where(sql`${t.retiredAt} is null`),
  ],
);

/**
 * The identity providers people of a realm may sign in with (Google, GitHub, Microsoft, Apple,
 * or any OpenID Connect provider), set by an operator (`npm run realm -- provider add`).
 */
export const upstreamProviders = pgTable(
  'upstream_providers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: inRealm(),
    /** The provider's id in the realm's addresses: /users/oauth/<slug>/start. */
    slug: text('slug').notNull(),
    /** 'oidc' (discovery), or a provider whose endpoints and quirks are known: 'google', 'github', 'microsoft', 'apple'. */
    kind: text('kind').notNull(),
    /** The label of its button: "Continue with <name>". */
    name: text('name').notNull(),
    issuer: text('issuer').notNull(),
    clientId: text('client_id').notNull(),
    /** The client secret (Apple: the private key that signs it), sealed under SECRET_KEY for this provider. */
    clientSecret: text('client_secret').notNull(),
    scope: text('scope').notNull(),
    /** Kind-specific settings: Apple's team and key ids, whether the upstream's `mfa` counts as the second step. */
    options: jsonb('options').$type<Record<string, string | boolean>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('upstream_providers_slug_unique').on(t.realmId, t.slug)],
);

/**
 * An account's identity at an upstream provider: the realm, the issuer and the subject, never
 * the email. One per provider and account.
 */
export const upstreamIdentities = pgTable(
  'upstream_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: inRealm(),
    userId: ownedBy(),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => upstreamProviders.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    /** The address the provider gave at the last sign-in (shown on the person's page; never a key). */
    email: text('email'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('upstream_identities_subject_unique').on(t.realmId, t.issuer, t.subject),
    uniqueIndex('upstream_identities_user_provider_unique').on(t.userId, t.providerId),
  ],
);

/**
 * A sign-in at an upstream provider under way, kept on the server: found by its `state`'s digest,
 * bound to the browser that started it (the digest of its cookie) and the realm, used once, ten
 * minutes. After the callback, an identity waiting to be linked to an existing account is kept
 * the same way (`pending`), until that account's owner signs in.
 */
export const upstreamFlows = pgTable(
  'upstream_flows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    realmId: inRealm(),
    providerId: uuid('provider_id')
      .notNull()
      .references(() => upstreamProviders.id, { onDelete: 'cascade' }),
    stateDigest: text('state_digest').notNull().unique(),
    browserDigest: text('browser_digest').notNull(),
    /** The PKCE verifier and the nonce, sealed. */
    secrets: text('secrets').notNull(),
    /** Where the person goes afterwards (a path of this site). */
    next: text('next'),
    /** A connection asked for from the account's page: the account it is for. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** A cross-site form_post's answer, sealed, kept for the same browser's redirected GET. */
    response: text('response'),
    /** An identity waiting to be linked to the account that holds its address, sealed. */
    pending: text('pending'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('upstream_flows_browser_idx').on(t.browserDigest), index('upstream_flows_expires_idx').on(t.expiresAt)],
);

export type Realm = typeof realms.$inferSelect;
export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type OidcClient = typeof oidcClients.$inferSelect;
export type UpstreamProvider = typeof upstreamProviders.$inferSelect;
export type UpstreamIdentity = typeof upstreamIdentities.$inferSelect;
