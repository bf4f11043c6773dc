import { safeNext } from '@accounts/validators/safe-next';
import { realmOrigin, type Context } from '../../kernel/context.js';
import { ProblemError } from '../../kernel/errors.js';
import { authorizationUrl, configurationOf, newFlowSecrets } from './client.js';
import { browserTokenOf, saveFlow } from './flows.js';
import { openProvider } from './providers.js';

/** The callback to register at the provider: the realm's origin, /users/oauth/<id>/callback (GET and form_post). */
export const callbackUrlOf = (ctx: Context, providerSlug: string) =>
  `${realmOrigin(ctx)}/users/oauth/${providerSlug}/callback`;

/**
 * Starts a sign-in at a provider of the realm (or, with `userId`, a connection of that account):
 * the flow kept on the server and bound to this browser, and where to send the person.
 */
export async function startAuthorization(
  ctx: Context,
  providerSlug: string,
  opts: { next?: string; userId?: string },
): Promise<{ location: string }> {
  const provider = await openProvider(ctx.db, ctx.vault, ctx.realm.id, providerSlug);
  if (!provider) throw new ProblemError('provider_unknown');
  const config = await configurationOf(provider, ctx.config.allowPrivateOutbound);
  const secrets = newFlowSecrets();
  const browserToken = browserTokenOf(ctx.upstreamBrowserToken);
  const expiresAt = await saveFlow(ctx.db, ctx.vault, {
    realmId: ctx.realm.id,
    providerId: provider.row.id,
    browserToken,
    secrets,
    next: opts.next === undefined ? null : safeNext(opts.next),
    userId: opts.userId ?? null,
  });
  ctx.cookies.upstreamBrowser?.(browserToken, expiresAt);
  return { location: await authorizationUrl(config, provider, secrets, callbackUrlOf(ctx, providerSlug)) };
}
