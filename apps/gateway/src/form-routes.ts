import type { ProcedurePath } from '@accounts/api';

/**
 * One /users/* form route: a thin adapter onto the tRPC procedure it names. Its fields are that
 * procedure's input; whether it needs a session, what it does and the problems it answers are the
 * procedure's own meta. The row says only what HTTP adds. The OpenAPI document is written from
 * these rows and their procedures.
 */
export interface FormRoute {
  method: 'GET' | 'POST';
  url: `/users/${string}`;
  procedure: ProcedurePath;
  /** The status of a success. */
  status: number;
  /** Hands out a session: a cookie, or the body for a client that sends X-Session-Delivery: token. */
  issuesSession?: boolean;
  /** The body's type: a form (the seed's style), or JSON for the WebAuthn structures of the passkey routes. */
  body?: 'json';
  /** The answer is a file to keep (`Content-Disposition: attachment`, named for the realm and the day). */
  download?: true;
  /**
   * A browser's step of a sign-in at an upstream provider: success and refusal alike are a 303 to
   * the next page (upstream-redirects.ts), never a body. `:provider` in the URL is an input field.
   */
  redirect?: true;
  /** Posted by another site by design (an upstream's form_post): exempt from the same-origin check (plugins/realm.ts). */
  crossSite?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The row a /users/* route was registered from, which the OpenAPI document describes. */ openapi?: FormRoute;
  }
}

/** The seed's form endpoints. A new /users/* route is a new row. */
export const FORM_ROUTES: readonly FormRoute[] = [
  { method: 'POST', url: '/users/register', procedure: 'account.register', status: 201, issuesSession: true },
  {
    method: 'POST',
    url: '/users/change_password',
    procedure: 'account.changePassword',
    status: 200,
    issuesSession: true,
  },
  { method: 'POST', url: '/users/login', procedure: 'account.signIn', status: 200, issuesSession: true },
  {
    method: 'POST',
    url: '/users/login/second_factor',
    procedure: 'account.signInSecondStep',
    status: 200,
    issuesSession: true,
  },
  { method: 'POST', url: '/users/logout', procedure: 'account.signOut', status: 200 },
  { method: 'GET', url: '/users/me', procedure: 'account.me', status: 200 },
  // The account page's suggestion of a passkey or two-step sign-in, dismissed for good.
  {
    method: 'POST',
    url: '/users/dismiss_second_factor_suggestion',
    procedure: 'account.dismissSecondFactorSuggestion',
    status: 200,
  },
  // The account's security page. GET routes take their fields from the query.
  { method: 'GET', url: '/users/sessions', procedure: 'security.sessions', status: 200 },
  { method: 'POST', url: '/users/revoke_session', procedure: 'security.revokeSession', status: 200 },
  { method: 'POST', url: '/users/revoke_other_sessions', procedure: 'security.revokeOtherSessions', status: 200 },
  { method: 'GET', url: '/users/activity', procedure: 'security.activity', status: 200 },
  { method: 'POST', url: '/users/change_name', procedure: 'security.changeName', status: 200 },
  { method: 'POST', url: '/users/delete_account', procedure: 'security.deleteAccount', status: 200 },
  // The apps with access to the account (the OpenID Connect provider's grants).
  { method: 'GET', url: '/users/apps', procedure: 'apps.list', status: 200 },
  { method: 'POST', url: '/users/apps/revoke', procedure: 'apps.revoke', status: 200 },
  // Signing in with an upstream identity provider (a browser's steps, answered with redirects),
  // and the account's connected accounts.
  { method: 'GET', url: '/users/oauth/:provider/start', procedure: 'upstream.start', status: 303, redirect: true },
  {
    method: 'GET',
    url: '/users/oauth/:provider/callback',
    procedure: 'upstream.callback',
    status: 303,
    redirect: true,
    issuesSession: true,
  },
  {
    method: 'POST',
    url: '/users/oauth/:provider/callback',
    procedure: 'upstream.keepFormPost',
    status: 303,
    redirect: true,
    crossSite: true,
  },
  { method: 'GET', url: '/users/connections', procedure: 'connections.list', status: 200 },
  {
    method: 'POST',
    url: '/users/connections/connect',
    procedure: 'connections.connect',
    status: 303,
    redirect: true,
  },
  { method: 'POST', url: '/users/connections/remove', procedure: 'connections.remove', status: 200 },
  // Two-step sign-in.
  { method: 'POST', url: '/users/totp/setup', procedure: 'twoStep.setupTotp', status: 200 },
  { method: 'POST', url: '/users/totp/enable', procedure: 'twoStep.enableTotp', status: 200 },
  { method: 'POST', url: '/users/totp/disable', procedure: 'twoStep.disableTotp', status: 200 },
  { method: 'POST', url: '/users/recovery_codes', procedure: 'twoStep.regenerateRecoveryCodes', status: 200 },
  // Passkeys (WebAuthn). Their bodies are JSON: the options and answers are WebAuthn's JSON structures.
  { method: 'GET', url: '/users/passkeys', procedure: 'passkeys.list', status: 200 },
  {
    method: 'POST',
    url: '/users/passkeys/register/options',
    procedure: 'passkeys.registrationOptions',
    status: 200,
    body: 'json',
  },
  { method: 'POST', url: '/users/passkeys/register', procedure: 'passkeys.add', status: 201, body: 'json' },
  { method: 'POST', url: '/users/passkeys/rename', procedure: 'passkeys.rename', status: 200, body: 'json' },
  { method: 'POST', url: '/users/passkeys/remove', procedure: 'passkeys.remove', status: 200, body: 'json' },
  {
    method: 'POST',
    url: '/users/passkeys/recheck/options',
    procedure: 'passkeys.recheckOptions',
    status: 200,
    body: 'json',
  },
  { method: 'POST', url: '/users/passkeys/recheck', procedure: 'passkeys.recheck', status: 200, body: 'json' },
  {
    method: 'POST',
    url: '/users/passkeys/login/options',
    procedure: 'passkeys.signInOptions',
    status: 200,
    body: 'json',
  },
  {
    method: 'POST',
    url: '/users/passkeys/login',
    procedure: 'passkeys.signIn',
    status: 200,
    body: 'json',
    issuesSession: true,
  },
  {
    method: 'POST',
    url: '/users/passkeys/second_factor/options',
    procedure: 'passkeys.secondStepOptions',
    status: 200,
    body: 'json',
  },
  {
    method: 'POST',
    url: '/users/passkeys/second_factor',
    procedure: 'passkeys.secondStep',
    status: 200,
    body: 'json',
    issuesSession: true,
  },
  // Changing the account's email address.
  { method: 'POST', url: '/users/change_email', procedure: 'emailChange.request', status: 202 },
  { method: 'GET', url: '/users/email_change', procedure: 'emailChange.pending', status: 200 },
  { method: 'POST', url: '/users/cancel_email_change', procedure: 'emailChange.cancel', status: 200 },
  { method: 'POST', url: '/users/confirm_email_change', procedure: 'emailChange.confirm', status: 200 },
  // A copy of one's data. A POST only: a download that records an event and mails a notice is
  // never something another site can start with a link (a GET navigation carries the session).
  { method: 'POST', url: '/users/export', procedure: 'accountData.export', status: 200, download: true },
  // The mailed-link flows.
  { method: 'POST', url: '/users/forgot_password', procedure: 'email.forgotPassword', status: 202 },
  // Where a link stands, before anything is done with it: a POST though it changes nothing, so
  // the token goes in the body (never in an address, a log line or a cache), as the rows beside it.
  { method: 'POST', url: '/users/check_link', procedure: 'email.checkLink', status: 200 },
  { method: 'POST', url: '/users/reset_password', procedure: 'email.resetPassword', status: 200 },
  { method: 'POST', url: '/users/verify_email', procedure: 'email.verifyEmail', status: 200 },
  { method: 'POST', url: '/users/resend_verification', procedure: 'email.resendVerification', status: 202 },
];
