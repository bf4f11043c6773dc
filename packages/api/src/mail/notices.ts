import type { Database, User } from '@accounts/db';
import { issueToken } from '../tokens.js';
import type { Context } from '../trpc.js';
import { enqueueMail } from './outbox.js';

// The mails the account flows queue, each inside the transaction of the event that causes it.

/** Where the web app of the request's realm lives (links in mails point there). */
export const originOf = (ctx: Context) => (ctx.origin ?? 'http://localhost').replace(/\/$/, '');

const base = (ctx: Context, user: User) => ({ realmId: ctx.realm.id, userId: user.id, recipient: user.email, locale: ctx.locale });

/** A new verification link for the account's address (older ones stop working). */
export async function queueVerification(tx: Database, ctx: Context, user: User): Promise<void> {
  const token = await issueToken(tx, { realmId: ctx.realm.id, userId: user.id, purpose: 'verify_email', ttlMs: ctx.config.verifyTokenTtlMs });
  await enqueueMail(tx, {
    ...base(ctx, user),
    template: 'verify_email',
    payload: { realmName: ctx.realm.name, name: user.name, link: `${originOf(ctx)}/verify-email?token=${token}`, validHours: Math.round(ctx.config.verifyTokenTtlMs / 3600_000) },
  });
}

/** A new password-reset link (older ones stop working). */
export async function queueReset(tx: Database, ctx: Context, user: User): Promise<void> {
  const token = await issueToken(tx, { realmId: ctx.realm.id, userId: user.id, purpose: 'reset_password', ttlMs: ctx.config.resetTokenTtlMs });
  await enqueueMail(tx, {
    ...base(ctx, user),
    template: 'reset_password',
    payload: { realmName: ctx.realm.name, name: user.name, link: `${originOf(ctx)}/reset-password?token=${token}`, validMinutes: Math.round(ctx.config.resetTokenTtlMs / 60_000) },
  });
}

/** Tells the owner their password was changed or reset: when, from where, and how to recover. */
export async function queuePasswordNotice(tx: Database, ctx: Context, user: User, how: 'changed' | 'reset'): Promise<void> {
  await enqueueMail(tx, {
    ...base(ctx, user),
    template: 'password_changed',
    payload: { realmName: ctx.realm.name, name: user.name, at: new Date().toISOString(), ip: ctx.clientIp, how, recoverLink: `${originOf(ctx)}/forgot-password` },
  });
}

/** Tells the owner a client with no known-device credential for the account signed in. */
export async function queueNewSignIn(tx: Database, ctx: Context, user: User): Promise<void> {
  await enqueueMail(tx, {
    ...base(ctx, user),
    template: 'new_sign_in',
    payload: {
      realmName: ctx.realm.name,
      name: user.name,
      at: new Date().toISOString(),
      ip: ctx.clientIp,
      userAgent: ctx.userAgent ? ctx.userAgent.slice(0, 200) : null,
      recoverLink: `${originOf(ctx)}/forgot-password`,
    },
  });
}
