import type { IncomingMessage } from 'node:http';
import {
  findClient,
  ProblemError,
  recordAppSignIn,
  shownRealm,
  type AccountConfig,
  type Database,
  type Realm,
  type SessionSignIn,
} from '@accounts/api';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type InteractionResults, type KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { serviceNameOf, type Config } from '../config.js';
import { localeOf } from '../locale.js';
import { realmOrigin } from '../mail/origin.js';
import { consentPage } from './consent-page.js';
import { interactionPath, type RealmProvider } from './provider.js';

// A sign-in to an app, on our own pages. The provider sends the browser to
// GET /oauth2/interaction/<uid>; there:
//   - login: a live session here (the same check as every page) finishes it with the account's
//     subject, how the session signed in (amr, acr) and when (auth_time); without one, or when
//     the app asked for a fresh sign-in (prompt=login, max_age) that this session is not, the
//     browser goes to the realm's sign-in page, which brings it back here (next=);
//   - consent: a first-party app is granted what it asks; any other app gets the consent page,
//     whose Allow / Deny form posts back here.
// A sign-in to an app is complete when the provider, resuming after these pages, gives the app
// its code (watchAppSignIns): an account event, and on a first sign-in to the app a notice.
// The seams: the sign-in page is the web app's /login (prompt=login there shows the form even to
// a signed-in browser); the consent page is consent-page.ts, to be replaced by a page of the web app.

export interface InteractionDeps {
  db: Database;
  providerOf(realm: Realm): Promise<RealmProvider>;
  signInOf(req: FastifyRequest): Promise<SessionSignIn | null>;
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The realm's sign-in page, coming back to this interaction; `fresh`: a new sign-in is asked for. */
export const signInPathFor = (uid: string, fresh: boolean) =>
  `/login?next=${encodeURIComponent(interactionPath(uid))}${fresh ? '&prompt=login' : ''}`;

/** The interaction of the browser's cookie, when it is the one the address names. */
async function interactionOf(provider: Provider, req: FastifyRequest, reply: FastifyReply, uid: string) {
  let interaction: Interaction;
  try {
    interaction = await provider.interactionDetails(req.raw, reply.raw);
  } catch (err) {
    if (err instanceof errors.SessionNotFound) throw new ProblemError('interaction_expired');
    throw err;
  }
  if (interaction.uid !== uid) throw new ProblemError('interaction_expired');
  return interaction;
}

/**
 * Whether the app asked for a sign-in this session is not: prompt=login (a new one, after the
 * interaction began), or max_age older than the session's sign-in.
 */
function wantsFreshSignIn(interaction: Interaction, signIn: SessionSignIn): boolean {
  if (signIn.signedInAtMs >= interaction.iat * 1000) return false;
  if (interaction.prompt.reasons.includes('login_prompt')) return true;
  const maxAge = Number(interaction.params.max_age);
  return Number.isFinite(maxAge) && Date.now() / 1000 - signIn.ts > maxAge;
}

/** Grants what the consent prompt found missing (into the interaction's grant, or a new one). */
async function grantAsked(
  provider: Provider,
  interaction: Interaction,
  accountId: string,
): Promise<InteractionResults> {
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  return { consent: existing ? {} : { grantId } };
}

export function registerInteractions(app: FastifyInstance, deps: InteractionDeps) {
  /** Hands the result to the provider and sends the browser on to it (then to the app). */
  const finish = async (
    provider: Provider,
    req: FastifyRequest,
    reply: FastifyReply,
    result: InteractionResults,
    merge: boolean,
  ) => {
    const to = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return reply.header('cache-control', 'no-store').redirect(to, 303);
  };

  app.get<{ Params: { uid: string } }>('/oauth2/interaction/:uid', async (req, reply) => {
    const realm = req.realm!;
    const { provider } = await deps.providerOf(realm);
    const interaction = await interactionOf(provider, req, reply, req.params.uid);
    const signIn = await deps.signInOf(req);
    const uid = interaction.uid;
    reply.header('cache-control', 'no-store');
    if (interaction.prompt.name === 'login') {
      if (!signIn) return reply.redirect(signInPathFor(uid, false), 303);
      if (wantsFreshSignIn(interaction, signIn)) return reply.redirect(signInPathFor(uid, true), 303);
      const { accountId, amr, acr, ts } = signIn;
      return finish(provider, req, reply, { login: { accountId, amr, acr, ts, remember: true } }, false);
    }
    if (interaction.prompt.name !== 'consent')
      return finish(provider, req, reply, { error: 'interaction_required' }, false);
    // The consent is the signed-in account's: a session that ended meanwhile signs in again; one of
    // another account by now cannot consent for the first (the app starts again, with it).
    if (!signIn) return reply.redirect(signInPathFor(uid, false), 303);
    if (signIn.accountId !== interaction.session?.accountId)
      return finish(provider, req, reply, { error: 'login_required', error_description: 'the session changed' }, false);
    const clientId = interaction.params.client_id;
    const client = typeof clientId === 'string' ? await findClient(deps.db, realm.id, clientId) : null;
    if (!client) return finish(provider, req, reply, { error: 'invalid_client' }, false);
    if (client.firstParty)
      return finish(provider, req, reply, await grantAsked(provider, interaction, signIn.accountId), true);
    const { redirect_uri: redirectUri, scope } = interaction.params;
    return consentPage(reply, {
      locale: localeOf(req),
      appName: client.name,
      scopes: typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [],
      action: interactionPath(uid),
      redirectOrigin: typeof redirectUri === 'string' && URL.canParse(redirectUri) ? new URL(redirectUri).origin : null,
    });
  });

  app.post<{ Params: { uid: string }; Body: Record<string, unknown> | undefined }>(
    '/oauth2/interaction/:uid',
    async (req, reply) => {
      const realm = req.realm!;
      const { provider } = await deps.providerOf(realm);
      const interaction = await interactionOf(provider, req, reply, req.params.uid);
      const signIn = await deps.signInOf(req);
      // Only a consent is answered by a form; anything else (or another account's session) starts over.
      if (interaction.prompt.name !== 'consent' || !signIn || signIn.accountId !== interaction.session?.accountId)
        return reply.redirect(interactionPath(interaction.uid), 303);
      const decision = req.body?.decision;
      if (decision === 'allow')
        return finish(provider, req, reply, await grantAsked(provider, interaction, signIn.accountId), true);
      if (decision === 'deny')
        return finish(
          provider,
          req,
          reply,
          { error: 'access_denied', error_description: 'the person did not allow the app' },
          false,
        );
      throw new ProblemError('validation_failed', { fields: [{ field: 'decision', code: 'required' }] });
    },
  );
}

export interface AppSignInDeps {
  db: Database;
  config: Config;
  accounts: AccountConfig;
  log: FastifyBaseLogger;
  /** The gateway's request of the raw one the provider is handed (its address, id and User-Agent). */
  requestOf(raw: IncomingMessage): FastifyRequest | undefined;
}

/**
 * Records each sign-in to an app that our pages finished: the provider's resume after an
 * interaction (a sign-in here, a consent given, or none needed: a first-party app, a consent
 * remembered) that ends in a code for the app. A denied consent or a failed resume is none; a
 * silent authorization without our pages (the provider's session, no prompt) is none either. The
 * rule (the event, whether it is the first to that app, the notice) is the api's recordAppSignIn;
 * it runs before the answer leaves, and its failure is logged, never the app's sign-in's.
 */
export function watchAppSignIns(provider: Provider, realm: Realm, deps: AppSignInDeps) {
  const finished = new WeakSet<object>();
  provider.on('authorization.success', (ctx: KoaContextWithOIDC) => {
    if (ctx.oidc.route === 'resume') finished.add(ctx);
  });
  provider.use(async (ctx, next) => {
    await next();
    if (!finished.has(ctx)) return;
    const { oidc } = ctx as KoaContextWithOIDC;
    const subject = oidc.session?.accountId;
    const clientId = oidc.client?.clientId;
    if (!subject || !clientId) return;
    const req = deps.requestOf(ctx.req);
    try {
      await recordAppSignIn(deps.db, {
        realm: shownRealm(realm, serviceNameOf(deps.config)),
        subject,
        clientId,
        clientIp: req?.ip ?? null,
        userAgent: req?.headers['user-agent'] ?? null,
        requestId: req?.id ?? null,
        mail: { cap: deps.accounts.mailCap, origin: realmOrigin(realm.slug, deps.config), log: req?.log ?? deps.log },
      });
    } catch (err) {
      deps.log.warn({ err: (err as Error).message, realm: realm.slug }, 'oidc: the sign-in to an app was not recorded');
    }
  });
}
