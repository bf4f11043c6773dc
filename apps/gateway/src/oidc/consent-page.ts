import type { Locale } from '@accounts/validators';
import type { FastifyReply } from 'fastify';
import { escapeHtml } from './error-page.js';

// The consent page, rendered here as plain HTML until the web app has a page of its own: the
// app's name, what it asks to see, and Allow / Deny as one form that works without scripts.

const STRINGS = {
  en: {
    title: (app: string) => `Allow ${app} to use your account?`,
    asks: (app: string) => `${app} asks to:`,
    allow: 'Allow',
    deny: 'Deny',
    note: 'You can remove its access at any time.',
    scopes: {
      openid: 'know that it is you (an identifier of your account for this app)',
      profile: 'see your name and language',
      email: 'see your email address',
      offline_access: 'keep its access while you are away',
    },
  },
  de: {
    title: (app: string) => `${app} den Zugriff auf Ihr Konto erlauben?`,
    asks: (app: string) => `${app} möchte:`,
    allow: 'Erlauben',
    deny: 'Ablehnen',
    note: 'Sie können den Zugriff jederzeit wieder entziehen.',
    scopes: {
      openid: 'wissen, dass Sie es sind (eine Kennung Ihres Kontos für diese App)',
      profile: 'Ihren Namen und Ihre Sprache sehen',
      email: 'Ihre E-Mail-Adresse sehen',
      offline_access: 'den Zugriff behalten, während Sie abwesend sind',
    },
  },
  fr: {
    title: (app: string) => `Autoriser ${app} à utiliser votre compte ?`,
    asks: (app: string) => `${app} demande à :`,
    allow: 'Autoriser',
    deny: 'Refuser',
    note: 'Vous pouvez retirer cet accès à tout moment.',
    scopes: {
      openid: 'savoir que c’est vous (un identifiant de votre compte pour cette application)',
      profile: 'voir votre nom et votre langue',
      email: 'voir votre adresse e-mail',
      offline_access: 'garder son accès en votre absence',
    },
  },
} satisfies Record<Locale, unknown>;

type ScopeName = keyof (typeof STRINGS)['en']['scopes'];
const isScopeName = (s: string): s is ScopeName => Object.hasOwn(STRINGS.en.scopes, s);

export interface ConsentView {
  locale: Locale;
  appName: string;
  scopes: string[];
  /** Where the form posts (this interaction's address). */
  action: string;
  /** The app's origin, where the answer leads after the form: the page's CSP lets the form go there. */
  redirectOrigin: string | null;
}

export function consentPage(reply: FastifyReply, view: ConsentView) {
  const t = STRINGS[view.locale];
  const app = escapeHtml(view.appName);
  const items = view.scopes
    .filter(isScopeName)
    .map((s) => `<li>${escapeHtml(t.scopes[s])}</li>`)
    .join('\n');
  const formAction = ["'self'", view.redirectOrigin].filter(Boolean).join(' ');
  const csp = `default-src 'self'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'; form-action ${formAction}`;
  return reply
    .header('content-security-policy', csp)
    .header('content-language', view.locale)
    .type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="${view.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(t.title(view.appName))}</title></head>
<body><main>
<h1>${escapeHtml(t.title(view.appName))}</h1>
<p>${escapeHtml(t.asks(view.appName)).replace(escapeHtml(view.appName), `<strong>${app}</strong>`)}</p>
<ul>
${items}
</ul>
<form method="post" action="${escapeHtml(view.action)}">
<button type="submit" name="decision" value="allow">${escapeHtml(t.allow)}</button>
<button type="submit" name="decision" value="deny">${escapeHtml(t.deny)}</button>
</form>
<p>${escapeHtml(t.note)}</p>
</main></body></html>
`);
}
