import type { Database, Realm, User } from '@accounts/db';
import { LOCALES, DEFAULT_LOCALE, type Locale } from '@accounts/validators';
import type { MailCap } from '../kernel/config.js';
import { describeDevice } from '../kernel/device.js';
import { issueToken, type TokenPurpose } from '../records/tokens.js';
import { realmOrigin, shownRealm, type Context, type ShownRealm } from '../kernel/context.js';
import type { Vault } from '../kernel/vault.js';
import { enqueueMail, type Enqueued } from './outbox.js';
import type { ConnectionChange, MailPayload, MailTemplate, TwoStepChange } from './templates.js';

// The mails the account flows queue, each inside the transaction of the event that causes it.

/** The language of the account's mails: the one its owner last used, whoever's request causes the mail. */
export const accountLocale = (user: User): Locale => LOCALES.find((l) => l === user.locale) ?? DEFAULT_LOCALE;

/** What queuing a mail needs of whoever causes it: a request's context, or an operator's command. */
interface MailSource {
  cap: MailCap;
  realm: ShownRealm;
  /** Seals a working link in the payload (requests' mails; an operator's notices carry none). */
  vault?: Vault;
  log?: Context['log'];
}

const requestSource = (ctx: Context): MailSource => ({
  cap: ctx.config.mailCap,
  realm: ctx.realm,
  vault: ctx.vault,
  log: ctx.log,
});

/**
 * Queues a mail about the account, to its address (or `to`), under the recipient cap; a refusal is
 * logged, without the address.
 */
async function queueFrom<T extends MailTemplate>(
  tx: Database,
  source: MailSource,
  user: User,
  template: T,
  payload: () => MailPayload[T] | Promise<MailPayload[T]>,
  to: string = user.email,
): Promise<Enqueued> {
  const result = await enqueueMail(tx, source.cap, {
    realmId: source.realm.id,
    userId: user.id,
    recipient: to,
    locale: accountLocale(user),
    template,
    payload,
    vault: source.vault,
  });
  if (!result.queued)
    source.log?.warn(
      { mail: { template, userId: user.id, realm: source.realm.slug } },
      'mail not queued: its address reached the mail cap',
    );
  return result;
}

/** queueFrom for the request of `ctx`. */
const queue = <T extends MailTemplate>(
  tx: Database,
  ctx: Context,
  user: User,
  template: T,
  payload: () => MailPayload[T] | Promise<MailPayload[T]>,
  to?: string,
) => queueFrom(tx, requestSource(ctx), user, template, payload, to);

/**
 * Queues the mail of a new single-use link of `purpose` to `path` on the realm's origin, which
 * works for `ttlMs` (`valid`: that time as the mail states it). Older links of the purpose stop
 * working, unless the cap refuses this one: the token is issued only when the mail is queued.
 */
async function queueLink<T extends Extract<TokenPurpose, MailTemplate>>(
  tx: Database,
  ctx: Context,
  user: User,
  purpose: T,
  ttlMs: number,
  path: string,
  valid: Omit<MailPayload[T], 'realmName' | 'name' | 'link'>,
): Promise<Enqueued> {
  return queue(tx, ctx, user, purpose, async () => {
    const token = await issueToken(tx, { realmId: ctx.realm.id, userId: user.id, purpose, ttlMs });
    const link = `${realmOrigin(ctx)}${path}?token=${token}`;
    // The whole payload of T; TypeScript does not follow an Omit<…, K> plus K back to it for a generic T.
    return { realmName: ctx.realm.name, name: user.name, link, ...valid } as MailPayload[T];
  });
}

/** A new verification link for the account's address (older ones stop working, unless the cap refuses this one). */
export async function queueVerification(tx: Database, ctx: Context, user: User): Promise<Enqueued> {
  const ttlMs = ctx.config.verifyTokenTtlMs;
  return queueLink(tx, ctx, user, 'verify_email', ttlMs, '/verify-email', {
    validHours: Math.round(ttlMs / 3600_000),
  });
}

/** A new password-reset link (older ones stop working, unless the cap refuses this one). */
export async function queueReset(tx: Database, ctx: Context, user: User): Promise<Enqueued> {
  const ttlMs = ctx.config.resetTokenTtlMs;
  return queueLink(tx, ctx, user, 'reset_password', ttlMs, '/reset-password', {
    validMinutes: Math.round(ttlMs / 60_000),
  });
}

// Notices go only to a confirmed address: an address nobody confirmed may not be the owner's, and
// a notice would let whoever holds the password write to it.

/** Tells the owner their password was changed or reset: when, from where, and how to recover. */
export async function queuePasswordNotice(
  tx: Database,
  ctx: Context,
  user: User,
  how: 'changed' | 'reset',
): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'password_changed', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    how,
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}

/** Tells the owner a client with no known-device credential for the account signed in. */
export async function queueNewSignIn(tx: Database, ctx: Context, user: User): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'new_sign_in', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    // The browser and system the parser recognises, never the header's own text.
    device: describeDevice(ctx.userAgent ?? null, { program: false, locale: accountLocale(user) }),
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}

/** Tells the owner their two-step sign-in changed (on, off, new recovery codes, a recovery code used). */
export async function queueTwoStepNotice(tx: Database, ctx: Context, user: User, change: TwoStepChange): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'two_step_changed', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    change,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    settingsLink: `${realmOrigin(ctx)}/settings/two-step`,
  }));
}

/**
 * The link that moves the account to `newEmail`, mailed to that address; older change links stop
 * working (unless the cap refuses this one). Same rules as every mailed link.
 */
export async function queueEmailChange(tx: Database, ctx: Context, user: User, newEmail: string): Promise<Enqueued> {
  const ttlMs = ctx.config.verifyTokenTtlMs;
  return queue(
    tx,
    ctx,
    user,
    'confirm_email_change',
    async () => {
      const token = await issueToken(tx, {
        realmId: ctx.realm.id,
        userId: user.id,
        purpose: 'change_email',
        ttlMs,
        newEmail,
      });
      return {
        realmName: ctx.realm.name,
        name: user.name,
        link: `${realmOrigin(ctx)}/confirm-email-change?token=${token}`,
        validHours: Math.round(ttlMs / 3600_000),
      };
    },
    newEmail,
  );
}

/** Tells the old address that a change was asked for, with how to stop it. */
export async function queueEmailChangeRequested(tx: Database, ctx: Context, user: User): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'email_change_requested', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    cancelLink: `${realmOrigin(ctx)}/settings/email`,
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}

/** Tells an address another account of the realm already has that someone tried to move an account onto it. */
export async function queueEmailChangeAttempt(tx: Database, ctx: Context, taken: User): Promise<Enqueued> {
  return queue(tx, ctx, taken, 'email_change_attempt', () => ({
    realmName: ctx.realm.name,
    at: new Date().toISOString(),
  }));
}

/** Tells the old address it was replaced (the new one masked). */
export async function queueEmailChanged(tx: Database, ctx: Context, user: User, newEmail: string): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'email_changed', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    newEmail: maskEmail(newEmail),
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}

/** Tells the owner a copy of their data was downloaded. */
export async function queueDataExported(tx: Database, ctx: Context, user: User): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'data_exported', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}

/**
 * What the notice of a sign-in to an app is queued with: it comes from the provider's interaction
 * (apps/gateway/src/oidc/), not from a procedure, so its request gives only these.
 */
export interface AppSignInMail {
  cap: MailCap;
  realm: ShownRealm;
  /** The realm's origin, which the mail links to. */
  origin: string;
  clientIp: string | null;
  log?: Context['log'];
}

/** Tells the owner their account signed in to an app for the first time, with how to remove its access. */
export async function queueAppSignedIn(tx: Database, mail: AppSignInMail, user: User, appName: string): Promise<void> {
  if (!user.emailVerifiedAt) return;
  const origin = mail.origin.replace(/\/$/, '');
  await queueFrom(tx, { cap: mail.cap, realm: mail.realm, log: mail.log }, user, 'app_signed_in', () => ({
    realmName: mail.realm.name,
    name: user.name,
    appName,
    at: new Date().toISOString(),
    ip: mail.clientIp,
    appsLink: `${origin}/settings/apps`,
    recoverLink: `${origin}/forgot-password`,
  }));
}

/**
 * What an operator's command mails with: there is no request, so the cap and the realm's origin
 * come from the server's configuration (the same origin its own mails link to).
 */
export interface OperatorMail {
  cap: MailCap;
  originOf: (realm: Realm) => string;
  /** The service's name (SERVICE_NAME), which an unnamed default realm goes by. */
  serviceName: string;
}

const operatorSource = (mail: OperatorMail, realm: Realm): MailSource => ({
  cap: mail.cap,
  realm: shownRealm(realm, mail.serviceName),
});

/** Tells the owner the operator disabled the account. Returns whether the notice was queued. */
export async function queueAccountDisabled(
  tx: Database,
  mail: OperatorMail,
  realm: Realm,
  user: User,
): Promise<boolean> {
  if (!user.emailVerifiedAt) return false;
  const source = operatorSource(mail, realm);
  const sent = await queueFrom(tx, source, user, 'account_disabled', () => ({
    realmName: source.realm.name,
    name: user.name,
    at: new Date().toISOString(),
  }));
  return sent.queued;
}

/** Tells the owner the operator turned off their two-step sign-in. Returns whether the notice was queued. */
export async function queueTwoStepReset(tx: Database, mail: OperatorMail, realm: Realm, user: User): Promise<boolean> {
  if (!user.emailVerifiedAt) return false;
  const origin = mail.originOf(realm).replace(/\/$/, '');
  const source = operatorSource(mail, realm);
  const sent = await queueFrom(tx, source, user, 'two_step_reset', () => ({
    realmName: source.realm.name,
    name: user.name,
    at: new Date().toISOString(),
    settingsLink: `${origin}/settings/two-step`,
    recoverLink: `${origin}/forgot-password`,
  }));
  return sent.queued;
}

/** `ada@example.com` as `a***@example.com`: enough for the owner to recognise, little for anyone else. */
export const maskEmail = (email: string) => {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
};

/** Tells the owner a provider was connected to the account or removed from it. */
export async function queueConnectionNotice(
  tx: Database,
  ctx: Context,
  user: User,
  change: ConnectionChange,
  providerName: string,
): Promise<void> {
  if (!user.emailVerifiedAt) return;
  await queue(tx, ctx, user, 'connection_changed', () => ({
    realmName: ctx.realm.name,
    name: user.name,
    change,
    providerName,
    at: new Date().toISOString(),
    ip: ctx.clientIp,
    settingsLink: `${realmOrigin(ctx)}/settings/connections`,
    recoverLink: `${realmOrigin(ctx)}/forgot-password`,
  }));
}
