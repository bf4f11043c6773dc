import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { isUniqueViolation, users, type User } from '@accounts/db';
import { normalizeEmail, type UpstreamCallbackInput } from '@accounts/validators';
import { safeNext } from '@accounts/validators/safe-next';
import { removeSecondStep } from '../credentials/factors.js';
import { endKnownDevices, parseDeviceCredential } from '../credentials/known-devices.js';
import type { LockoutSubject } from '../credentials/lockout.js';
import { lockoutSubject } from '../credentials/lockout.js';
import { completeAuthorization, configurationOf } from '../credentials/upstream/client.js';
import { keepResponse, pendingLinkOf, savePendingLink, takeFlow } from '../credentials/upstream/flows.js';
import { linkedAccount, linkIdentity, touchIdentity } from '../credentials/upstream/identities.js';
import type { OpenedProvider, UpstreamProfile } from '../credentials/upstream/kinds.js';
import { openProvider, openProviderById } from '../credentials/upstream/providers.js';
import { callbackUrlOf } from '../credentials/upstream/start.js';
import { addressKey } from '../kernel/device.js';
import { ProblemError } from '../kernel/errors.js';
import type { Context } from '../kernel/context.js';
import { queueConnectionNotice, queueVerification } from '../mail/notices.js';
import { eventSource, recordEvent, type EventApp } from '../records/events.js';
import { endSessions } from '../records/sessions.js';
import { endMailedLinks } from '../records/tokens.js';
import { findUserByEmail, noPassword } from '../records/users.js';
import { answer, signIn, startSession, type SignInMethod } from './flow.js';

// Signing in with an upstream identity provider: one more method of the one flow, so the lockout,
// the known device, the new-sign-in notice, the unconfirmed address and the second step apply to it
// as to every other way in. An identity is the realm, the issuer and the subject; an email address
// never signs anyone in to an account by itself (docs/oidc.md, "Sign in with other providers").

/** What a callback came to before the flow: the identity, with its account when it is linked; or why not. */
type Callback =
  | { ok: false; reason: string; provider: OpenedProvider | null }
  | { ok: 'connected'; provider: OpenedProvider; next: string }
  | { ok: true; provider: OpenedProvider; profile: UpstreamProfile; user: User | null; next: string | null };

const appOf = (p: OpenedProvider): EventApp => ({ clientId: p.row.slug, name: p.row.name });

/** A refused callback is counted per provider and address: nobody's account is known, and one address cannot lock out the rest. */
const refusedSubject = (ctx: Context, provider: OpenedProvider | null): LockoutSubject => ({
  userId: null,
  key: `upstream:${createHash('sha256')
    .update(`${ctx.realm.id}\n${provider?.row.slug ?? ''}\n${addressKey(ctx.clientIp)}`)
    .digest('hex')}`,
});

/**
 * A linked identity (a first step: an account with two-step sign-in is asked for its second), or
 * a refused callback, counted like a wrong password (`upstream_failed`) and answered 401.
 */
function upstreamMethod(completes: 'first' | 'whole'): SignInMethod<Callback, null> {
  return {
    failure: 'upstream_failed',
    completes,
    identify(ctx, cb) {
      if (cb.ok !== true || !cb.user)
        return Promise.resolve({ user: null, subject: refusedSubject(ctx, cb.provider), state: null });
      return Promise.resolve({
        user: cb.user,
        subject: lockoutSubject(ctx.realm.id, cb.user.email, cb.user.id),
        state: null,
      });
    },
    verify(_ctx, { user }, cb) {
      if (cb.ok !== true || !user) return Promise.resolve(null);
      // Apps this session signs in to are told the upstream's mfa only where it stands for the second step.
      return Promise.resolve({ amr: completes === 'whole' ? ['mfa'] : [] });
    },
    refusal: (ctx, _found, cb) => {
      if (!cb.ok)
        ctx.log?.warn({ upstream: { provider: cb.provider?.row.slug, reason: cb.reason } }, 'upstream sign-in refused');
      return new ProblemError('upstream_failed');
    },
    async passed(ctx, user, cb) {
      if (cb.ok !== true) return;
      await touchIdentity(ctx.db, ctx.realm.id, cb.profile);
      if (completes === 'whole')
        await recordEvent(ctx.db, eventSource(ctx), 'upstream_mfa_accepted', user.id, appOf(cb.provider));
    },
  };
}

const firstStep = upstreamMethod('first');
/** A provider trusted for the second step (its `mfa`, an operator's option): a whole sign-in. */
const withUpstreamMfa = upstreamMethod('whole');

/**
 * A form_post callback (Apple's, a cross-site POST that carries no cookie of ours): its answer is
 * kept on its flow for the browser's redirected GET, which the flow's binding then checks.
 */
export async function keepFormPost(ctx: Context, input: UpstreamCallbackInput): Promise<{ state: string | null }> {
  if (!input.state) return { state: null };
  // The provider is in the path; the rest is the upstream's answer, kept as it came.
  const response = Object.fromEntries(Object.entries(input).filter(([key]) => key !== 'provider'));
  const kept = await keepResponse(ctx.db, ctx.vault, ctx.realm.id, input.state, response);
  return { state: kept ? input.state : null };
}

/** What a callback's page is told: where to go, and what happened on the way. */
export interface CallbackResult {
  next: string;
  /** An unconfirmed account with the provider's confirmed address became the person's: its old password and sessions are gone. */
  tookOver?: true;
  /** A connection asked for from the account's page was made. */
  connected?: string;
}

/**
 * The callback: the flow's state taken (this browser's, this realm's, once), the code exchanged
 * and the identity validated, then one of: a linked identity signs in through the flow; a
 * connection asked for by a signed-in account is made; an address no account holds makes a new
 * account; an address an account holds waits for that account's owner to sign in (never linked by
 * the address alone); an unconfirmed account with the provider's confirmed address is taken over.
 */
export async function finishUpstream(ctx: Context, input: UpstreamCallbackInput) {
  const cb = await resolveCallback(ctx, input);
  if (!cb.ok) throw await refuse(ctx, cb);
  if (cb.ok === 'connected') return { connected: cb.provider.row.slug, next: cb.next };
  const { provider, profile } = cb;
  const next = safeNext(cb.next);
  if (cb.user) {
    const method =
      provider.row.options.acceptUpstreamMfa === true && profile.amr.includes('mfa') ? withUpstreamMfa : firstStep;
    return { ...(await goesOn(next, async () => answer(ctx, await signIn(ctx, method, cb)))), next };
  }
  if (!profile.email) throw new ProblemError('upstream_email_missing');
  const holder = await findUserByEmail(ctx.db, ctx.realm.id, normalizeEmail(profile.email));
  if (!holder) return { ...(await createAccount(ctx, provider, profile)), next };
  // Never by the address alone: the account's owner must sign in with its own factors first.
  if (!profile.emailVerified) throw new ProblemError('upstream_email_unverified');
  if (holder.emailVerifiedAt) {
    await savePendingLink(ctx.db, ctx.vault, ctx.realm.id, ctx.upstreamBrowserToken!, {
      providerId: provider.row.id,
      profile,
      next: cb.next,
    });
    throw new ProblemError('upstream_link_required', { next });
  }
  return { ...(await takeOver(ctx, provider, profile, holder)), next, tookOver: true as const };
}

/** A sign-in that goes on at the sign-in page (its second step) keeps where it leads. */
async function goesOn<T>(next: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ProblemError && err.problem === 'second_factor_required')
      throw new ProblemError('second_factor_required', { ...err.extra, next });
    throw err;
  }
}

/** Settles a refused callback as a failed sign-in (counted, recorded) and returns its 401. */
async function refuse(ctx: Context, cb: Callback): Promise<ProblemError> {
  try {
    await signIn(ctx, firstStep, cb);
  } catch (err) {
    if (err instanceof ProblemError) return err;
    throw err;
  }
  return new ProblemError('upstream_failed');
}

async function resolveCallback(ctx: Context, input: UpstreamCallbackInput): Promise<Callback> {
  const named = await openProvider(ctx.db, ctx.vault, ctx.realm.id, input.provider);
  if (!named) throw new ProblemError('provider_unknown');
  const flow = input.state
    ? await takeFlow(ctx.db, ctx.vault, ctx.realm.id, input.state, ctx.upstreamBrowserToken ?? null)
    : null;
  if (!flow || flow.providerId !== named.row.id) return { ok: false, reason: 'state_invalid', provider: named };
  // A form_post's answer was kept for this GET; a GET's own is its query.
  const response = flow.response ?? input;
  if (response.error) return { ok: false, reason: String(response.error), provider: named };
  const config = await configurationOf(named, ctx.config.allowPrivateOutbound);
  const url = new URL(callbackUrlOf(ctx, named.row.slug));
  for (const key of ['code', 'state', 'iss'] as const)
    if (typeof response[key] === 'string') url.searchParams.set(key, response[key]);
  const done = await completeAuthorization(config, named, flow.secrets, url, { user: response.user });
  if ('error' in done) return { ok: false, reason: done.error, provider: named };
  if (flow.userId) return connect(ctx, named, done.profile, flow.userId, flow.next);
  const user = await linkedAccount(ctx.db, ctx.realm.id, done.profile);
  return { ok: true, provider: named, profile: done.profile, user, next: flow.next };
}

/** A connection asked for from the account's page: linked to that account (still signed in here), then the page. */
async function connect(
  ctx: Context,
  provider: OpenedProvider,
  profile: UpstreamProfile,
  userId: string,
  next: string | null,
): Promise<Callback> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId));
  if (!user || user.disabledAt) throw new ProblemError('unauthenticated');
  await ctx.db.transaction(async (tx) => {
    await linkIdentity(tx, ctx.realm.id, user.id, provider.row.id, profile);
    await recordEvent(tx, eventSource(ctx), 'connection_added', user.id, appOf(provider));
    await queueConnectionNotice(tx, ctx, user, 'added', provider.row.name);
  });
  return { ok: 'connected', provider, next: safeNext(next, '/settings/connections') };
}

/** A new account for an identity whose address no account of the realm holds: no password until one is set. */
async function createAccount(ctx: Context, provider: OpenedProvider, profile: UpstreamProfile) {
  const email = normalizeEmail(profile.email!);
  const name = (profile.name ?? email.split('@')[0]!).slice(0, 100);
  const created = await ctx.db
    .transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({
          realmId: ctx.realm.id,
          name,
          email,
          passwordHash: noPassword(),
          locale: ctx.locale,
          emailVerifiedAt: profile.emailVerified ? new Date() : null,
        })
        .returning();
      await linkIdentity(tx, ctx.realm.id, user!.id, provider.row.id, profile);
      await recordEvent(tx, eventSource(ctx), 'registered', user!.id, appOf(provider));
      if (!profile.emailVerified) await queueVerification(tx, ctx, user!);
      const device = { tokens: parseDeviceCredential(ctx.deviceCredential), known: null };
      const started = await startSession(tx, ctx, user!.id, device, { password: false, factor: false, amr: [] });
      return { user: user!, started };
    })
    .catch((err: unknown) => {
      // Another request made the account (or the link) first: this callback is used up; sign in again.
      if (isUniqueViolation(err)) throw new ProblemError('upstream_failed');
      throw err;
    });
  return answer(ctx, { next: 'signed_in', user: created.user, started: created.started });
}

/**
 * An account whose address was never confirmed, and the provider vouches for that address: it is
 * the provider's person's. Whoever registered it (perhaps someone else, before them: an account
 * pre-hijacking) loses every way in: the password, the sessions, the second step, known devices,
 * mailed links; then the identity is linked and signs in.
 */
async function takeOver(ctx: Context, provider: OpenedProvider, profile: UpstreamProfile, holder: User) {
  const taken = await ctx.db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({
        passwordHash: noPassword(),
        emailVerifiedAt: new Date(),
        passwordChangedAt: new Date(),
        credentialsChangedAt: new Date(),
      })
      .where(and(eq(users.id, holder.id), eq(users.passwordHash, holder.passwordHash)))
      .returning();
    if (!user) throw new ProblemError('upstream_failed');
    await endSessions(tx, user.id);
    // The app, every passkey, the recovery codes and any pending sign-in.
    await removeSecondStep(tx, user.id);
    await endKnownDevices(tx, user.id);
    await endMailedLinks(tx, user.id);
    await linkIdentity(tx, ctx.realm.id, user.id, provider.row.id, profile);
    await recordEvent(tx, eventSource(ctx), 'account_taken_over', user.id, appOf(provider));
    await queueConnectionNotice(tx, ctx, user, 'took_over', provider.row.name);
    const device = { tokens: parseDeviceCredential(ctx.deviceCredential), known: null };
    const started = await startSession(tx, ctx, user.id, device, { password: false, factor: false, amr: [] });
    return { user, started };
  });
  return answer(ctx, { next: 'signed_in', user: taken.user, started: taken.started });
}

/**
 * After a sign-in with the account's own factors: an identity this browser brought that waits for
 * the account holding its address is linked now (and the address told). Nothing without one.
 */
export async function linkPendingIdentity(ctx: Context, user: User): Promise<void> {
  if (!ctx.upstreamBrowserToken) return;
  const pending = await pendingLinkOf(ctx.db, ctx.vault, ctx.realm.id, ctx.upstreamBrowserToken);
  if (!pending || !pending.profile.email || normalizeEmail(pending.profile.email) !== user.email) return;
  const provider = await openProviderById(ctx.db, ctx.vault, pending.providerId);
  if (!provider) return;
  await ctx.db.transaction(async (tx) => {
    if (!(await pendingLinkOf(tx, ctx.vault, ctx.realm.id, ctx.upstreamBrowserToken!, true))) return;
    await linkIdentity(tx, ctx.realm.id, user.id, provider.row.id, pending.profile);
    await recordEvent(tx, eventSource(ctx), 'connection_added', user.id, appOf(provider));
    await queueConnectionNotice(tx, ctx, user, 'added', provider.row.name);
  });
}

/** The identity this browser brought that waits for its account's owner to sign in: for the sign-in page to say so. */
export async function pendingLinkSummary(ctx: Context) {
  const pending = await pendingLinkOf(ctx.db, ctx.vault, ctx.realm.id, ctx.upstreamBrowserToken ?? null);
  if (!pending) return { pending: null };
  const provider = await openProviderById(ctx.db, ctx.vault, pending.providerId);
  return provider
    ? { pending: { provider: provider.row.slug, providerName: provider.row.name, email: pending.profile.email } }
    : { pending: null };
}
