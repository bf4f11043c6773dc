import type { Locale } from '@accounts/validators';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { localeOfHeader } from '../locale.js';
import { escapeHtml } from './error-page.js';

// The pages of a sign-out an app started (RP-initiated logout), in the person's language and
// without scripts: "Sign out?" with the provider's form (its hidden xsrf field) and two buttons
// tied to it, then "You are signed out" when the app registered no address to return to.

const STRINGS = {
  en: {
    title: 'Sign out?',
    ask: (app: string | null) =>
      app ? `${app} asks to sign you out here too.` : 'An app asks to sign you out here too.',
    yes: 'Sign out',
    no: 'Stay signed in',
    done: 'You are signed out',
    doneText: 'You can close this page.',
  },
  de: {
    title: 'Abmelden?',
    ask: (app: string | null) =>
      app ? `${app} möchte Sie auch hier abmelden.` : 'Eine App möchte Sie auch hier abmelden.',
    yes: 'Abmelden',
    no: 'Angemeldet bleiben',
    done: 'Sie sind abgemeldet',
    doneText: 'Sie können diese Seite schließen.',
  },
  fr: {
    title: 'Se déconnecter ?',
    ask: (app: string | null) =>
      app ? `${app} demande à vous déconnecter ici aussi.` : 'Une application demande à vous déconnecter ici aussi.',
    yes: 'Se déconnecter',
    no: 'Rester connecté',
    done: 'Vous êtes déconnecté',
    doneText: 'Vous pouvez fermer cette page.',
  },
} satisfies Record<Locale, unknown>;

function page(ctx: KoaContextWithOIDC, locale: Locale, title: string, body: string) {
  ctx.type = 'html';
  ctx.set('content-language', locale);
  ctx.set('cache-control', 'no-store');
  ctx.body = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>
`;
}

const localeOf = (ctx: KoaContextWithOIDC) => localeOfHeader(ctx.get('accept-language') || undefined);
const appName = (ctx: KoaContextWithOIDC) => ctx.oidc.client?.clientName ?? null;

/** The confirmation: `form` is the provider's (id op.logoutForm, its hidden fields); the buttons submit it. */
export function logoutSource(ctx: KoaContextWithOIDC, form: string): void {
  const locale = localeOf(ctx);
  const t = STRINGS[locale];
  const app = appName(ctx);
  page(
    ctx,
    locale,
    t.title,
    `<p>${escapeHtml(t.ask(app))}</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">${escapeHtml(t.yes)}</button>
<button type="submit" form="op.logoutForm">${escapeHtml(t.no)}</button>`,
  );
}

/** After the sign-out, when the app gave no registered address to return to. */
export function postLogoutSuccessSource(ctx: KoaContextWithOIDC): void {
  const locale = localeOf(ctx);
  const t = STRINGS[locale];
  page(ctx, locale, t.done, `<p>${escapeHtml(t.doneText)}</p>`);
}
