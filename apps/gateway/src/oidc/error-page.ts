import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';

// What a browser sees when the provider cannot send it back to the app (an unknown app, a
// redirect URI it never registered, an expired sign-in): a short page naming the error, or the
// same as problem+json for a program that asked for JSON. Never a stack or the request's Host.

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderProviderError(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  const status = ctx.status >= 400 ? ctx.status : 400;
  const title = out.error_description ?? out.error;
  ctx.status = status;
  ctx.set('cache-control', 'no-store');
  if (ctx.accepts('html', 'json') === 'json') {
    ctx.type = 'application/problem+json';
    ctx.body = { type: 'about:blank', title, status, code: out.error };
    return;
  }
  ctx.type = 'html';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in could not continue</title></head>
<body><main><h1>Sign-in could not continue</h1>
<p>${escapeHtml(title)}</p>
<p><code>${escapeHtml(out.error)}</code></p>
<p>Go back to the app and start again.</p></main></body></html>
`;
}
