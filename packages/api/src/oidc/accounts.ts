import { and, eq, isNull, sql } from 'drizzle-orm';
import { realms, users, type Database, type Realm, type Session, type User } from '@accounts/db';
import type { AccountConfig } from '../kernel/config.js';
import { findSession } from '../records/sessions.js';

// Who an app is told signed in: the account's subject (users.subject: random, never the email,
// never another account's), its claims by scope, and how its session here signed in.

/** The claims an app may be given, by scope: `openid` (sub), `profile`, `email`. */
export const OIDC_SCOPE_CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'locale'],
  email: ['email', 'email_verified'],
} as const;

/** Authentication context classes (REFEDS): one factor, or two (a password and a second step). */
export const ACR_SINGLE_FACTOR = 'https://refeds.org/profile/sfa';
export const ACR_MULTI_FACTOR = 'https://refeds.org/profile/mfa';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What apps may know of an account. */
export function accountClaims(user: User) {
  return {
    sub: user.subject,
    name: user.name,
    locale: user.locale,
    email: user.email,
    email_verified: user.emailVerifiedAt !== null,
  };
}

/**
 * The account an app's token or session names by its subject, while it may still sign in: not
 * disabled, and confirmed in a realm that signs in only confirmed addresses (as the session check).
 */
export async function findAccountBySubject(db: Database, realmId: string, subject: string): Promise<User | null> {
  // Not a subject: no account (and no query a malformed uuid would make fail).
  if (!UUID.test(subject)) return null;
  const [row] = await db
    .select({ user: users })
    .from(users)
    .innerJoin(realms, eq(realms.id, users.realmId))
    .where(
      and(
        eq(users.realmId, realmId),
        eq(users.subject, subject),
        isNull(users.disabledAt),
        sql`(not ${realms.requireVerifiedEmail} or ${users.emailVerifiedAt} is not null)`,
      ),
    )
    .limit(1);
  return row?.user ?? null;
}

/** How a session here signed in, as an app is told (the provider's login result). */
export interface SessionSignIn {
  /** The account's subject: the provider's accountId and every token's `sub`. */
  accountId: string;
  /** RFC 8176 method references. */
  amr: string[];
  acr: string;
  /** When it signed in, in seconds (`auth_time`). */
  ts: number;
  /** The same, in milliseconds, to compare with an interaction's start. */
  signedInAtMs: number;
  userId: string;
  /** The session here (what a provider session and its tokens are bound to). */
  sessionId: string;
}

/** What a session's sign-in was: its recorded methods, or for an older session what its checks say. */
export function sessionSignIn(session: Session, user: User): SessionSignIn {
  const amr = session.amr ?? (session.passwordCheckedAt ? ['pwd'] : []);
  return {
    accountId: user.subject,
    amr,
    acr: amr.includes('mfa') ? ACR_MULTI_FACTOR : ACR_SINGLE_FACTOR,
    ts: Math.floor(session.createdAt.getTime() / 1000),
    signedInAtMs: session.createdAt.getTime(),
    userId: user.id,
    sessionId: session.id,
  };
}

/**
 * The live session of a session token in the realm (the check every page and procedure uses:
 * not expired nor idle, its account not disabled), as a sign-in an app may be told of; or null.
 */
export async function signedInSession(
  db: Database,
  realm: Realm,
  token: string | null,
  config: AccountConfig,
): Promise<SessionSignIn | null> {
  if (!token) return null;
  const found = await findSession(db, token, realm.id, config);
  return found && sessionSignIn(found.session, found.user);
}
