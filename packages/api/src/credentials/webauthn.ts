import { createHash, randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { COSEALG, decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { passkeys, users, webauthnChallenges, type Database, type User } from '@accounts/db';
import { fromNow } from '../kernel/db-time.js';
import { ProblemError } from '../kernel/errors.js';
import { realmOrigin, type Context } from '../kernel/context.js';

// WebAuthn ceremonies (@simplewebauthn/server). The relying party is the realm's own host, from
// the configured origin (never the request): a realm's passkeys never work in another realm.
// Every challenge is stored, single-use, bound to the realm, the ceremony and the account it is
// for, and dies after five minutes; any instance can finish a ceremony another began.

export const CHALLENGE_TTL_MS = 5 * 60_000;

export type Ceremony = 'register' | 'sign_in' | 'second_step';

export type Passkey = typeof passkeys.$inferSelect;

/** The realm's relying party: its origin, and that origin's host as the RP ID. */
export function relyingParty(ctx: Context) {
  const origin = realmOrigin(ctx);
  return { origin, rpID: new URL(origin).hostname };
}

const rejected = () => new ProblemError('passkey_rejected');

/**
 * The public-key algorithms a new passkey may use: Ed25519 (EdDSA), P-256 (ES256) and RSA (RS256),
 * offered and checked whatever the runtime supports. Left to the library, the list follows
 * Node.js: on 24 it puts ML-DSA-44 first, through Web Crypto methods Node.js still calls
 * experimental (a warning on stderr at their first use, and no promise to keep them), and a
 * passkey stored under it would depend on them for every sign-in to come.
 */
export const PASSKEY_ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];

async function rememberChallenge(ctx: Context, ceremony: Ceremony, challenge: string, userId: string | null) {
  await ctx.db
    .insert(webauthnChallenges)
    .values({ realmId: ctx.realm.id, ceremony, challenge, userId, expiresAt: fromNow(CHALLENGE_TTL_MS) });
}

/**
 * Uses up the challenge an authenticator's answer signed, if it is a live one of this realm, ceremony
 * and account; otherwise 400 `passkey_challenge_invalid` (expired, used, another realm's or ceremony's).
 */
async function takeChallenge(
  ctx: Context,
  ceremony: Ceremony,
  clientDataJSON: string,
  userId: string | null,
): Promise<string> {
  let challenge: string;
  try {
    challenge = decodeClientDataJSON(clientDataJSON).challenge;
  } catch {
    throw new ProblemError('passkey_challenge_invalid');
  }
  if (typeof challenge !== 'string' || challenge.length > 200) throw new ProblemError('passkey_challenge_invalid');
  const [row] = await ctx.db
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.challenge, challenge),
        eq(webauthnChallenges.realmId, ctx.realm.id),
        eq(webauthnChallenges.ceremony, ceremony),
        userId === null ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, userId),
        gt(webauthnChallenges.expiresAt, sql`now()`),
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge });
  if (!row) throw new ProblemError('passkey_challenge_invalid');
  return row.challenge;
}

export async function passkeysOf(db: Database, userId: string): Promise<Passkey[]> {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.createdAt);
}

/** The account's WebAuthn user handle, made at its first passkey: random, never the email. */
async function userHandle(db: Database, user: User): Promise<string> {
  if (user.passkeyHandle) return user.passkeyHandle;
  const [row] = await db
    .update(users)
    .set({ passkeyHandle: sql`coalesce(${users.passkeyHandle}, ${randomBytes(32).toString('base64url')})` })
    .where(eq(users.id, user.id))
    .returning({ handle: users.passkeyHandle });
  return row!.handle!;
}

/** What the browser passes to navigator.credentials.create() to add a passkey to the account. */
export async function registrationOptions(ctx: Context, user: User): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { rpID } = relyingParty(ctx);
  const handle = await userHandle(ctx.db, user);
  const options = await generateRegistrationOptions({
    rpName: ctx.realm.name,
    rpID,
    userName: user.email,
    userID: isoBase64URL.toBuffer(handle),
    userDisplayName: user.name,
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: (await passkeysOf(ctx.db, user.id)).map((p) => ({
      id: p.credentialId,
      transports: p.transports,
    })),
    // A discoverable credential: it signs in without an email typed first.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  await rememberChallenge(ctx, 'register', options.challenge, user.id);
  return options;
}

/** A verified new passkey, ready to store. */
export type NewPasskey = Omit<Passkey, 'id' | 'userId' | 'name' | 'createdAt' | 'lastUsedAt'>;

/** Checks a registration answer against its challenge and this realm; 422 `passkey_rejected` when it does not hold. */
export async function verifyRegistration(
  ctx: Context,
  user: User,
  response: RegistrationResponseJSON,
): Promise<NewPasskey> {
  const expectedChallenge = await takeChallenge(ctx, 'register', response.response.clientDataJSON, user.id);
  const { origin, rpID } = relyingParty(ctx);
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: false,
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  }).catch(() => null);
  if (!verification?.verified) throw rejected();
  const info = verification.registrationInfo;
  return {
    credentialId: info.credential.id,
    publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    aaguid: info.aaguid,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}

/**
 * What the browser passes to navigator.credentials.get(): for a sign-in without an email, any
 * passkey of the realm, with user verification required; for a second step, the account's own
 * passkeys, user verification preferred.
 */
export async function assertionOptions(
  ctx: Context,
  ceremony: 'sign_in' | 'second_step',
  user: User | null,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { rpID } = relyingParty(ctx);
  const options = await generateAuthenticationOptions({
    rpID,
    timeout: CHALLENGE_TTL_MS,
    userVerification: ceremony === 'sign_in' ? 'required' : 'preferred',
    allowCredentials: user
      ? (await passkeysOf(ctx.db, user.id)).map((p) => ({ id: p.credentialId, transports: p.transports }))
      : undefined,
  });
  await rememberChallenge(ctx, ceremony, options.challenge, user?.id ?? null);
  return options;
}

/** The passkey a credential ID names in this realm, with its account; null for any other. */
export async function findPasskey(
  db: Database,
  realmId: string,
  credentialId: string,
): Promise<{ passkey: Passkey; user: User } | null> {
  if (typeof credentialId !== 'string' || credentialId.length > 1024) return null;
  const [row] = await db
    .select({ passkey: passkeys, user: users })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.userId))
    .where(and(eq(passkeys.credentialId, credentialId), eq(users.realmId, realmId)))
    .limit(1);
  return row ?? null;
}

/** What a lockout counts a sign-in with an unknown passkey under: a digest of realm and credential. */
export const unknownPasskeyKey = (realmId: string, credentialId: string) =>
  `passkey:${createHash('sha256').update(`${realmId}\n${credentialId}`).digest('hex')}`;

/** A checked assertion: the counter to store (compare-and-set against the one it was checked with). */
export interface Assertion {
  passkey: Passkey;
  newCounter: number;
}

export type AssertionOutcome = { ok: true; assertion: Assertion } | { ok: false; counterWentBack: boolean };

/**
 * Checks an assertion of `passkey` against its challenge (already taken), this realm's origin and
 * RP ID, the stored public key and counter. A counter that did not move forward, where the
 * authenticator keeps one, is refused (a cloned authenticator) and said so for the record, but
 * only for an assertion whose signature holds: anyone can send a low counter with a bad signature.
 */
export async function verifyAssertion(
  ctx: Context,
  passkey: Passkey,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  requireUserVerification: boolean,
): Promise<AssertionOutcome> {
  const { origin, rpID } = relyingParty(ctx);
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    credential: {
      id: passkey.credentialId,
      publicKey: isoBase64URL.toBuffer(passkey.publicKey),
      // The library compares the counter before it checks the signature, and throws alike for
      // both: given none, it checks everything else, and the counter is compared below.
      counter: 0,
      transports: passkey.transports,
    },
    requireUserVerification,
  }).catch(() => null);
  if (!verification?.verified) return { ok: false, counterWentBack: false };
  const { newCounter } = verification.authenticationInfo;
  if ((newCounter > 0 || passkey.counter > 0) && newCounter <= passkey.counter)
    return { ok: false, counterWentBack: true };
  return { ok: true, assertion: { passkey, newCounter } };
}

/** Takes a sign-in's or a second step's challenge from an assertion. */
export const takeAssertionChallenge = (
  ctx: Context,
  ceremony: 'sign_in' | 'second_step',
  response: AuthenticationResponseJSON,
  userId: string | null,
) => takeChallenge(ctx, ceremony, response.response.clientDataJSON, userId);

/**
 * Records a use of the passkey in the caller's transaction: its new counter and when, only if the
 * counter is still the one the assertion was checked against (two uses of one assertion: one wins).
 */
export async function recordPasskeyUse(tx: Database, { passkey, newCounter }: Assertion): Promise<boolean> {
  const rows = await tx
    .update(passkeys)
    .set({ counter: newCounter, lastUsedAt: sql`now()` })
    .where(and(eq(passkeys.id, passkey.id), eq(passkeys.counter, passkey.counter)))
    .returning({ id: passkeys.id });
  return rows.length === 1;
}
