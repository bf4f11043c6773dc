import type { ProblemCode } from '@accounts/api';
import type { ProcedurePath } from './procedures.js';

/**
 * One /users/* form route: a thin adapter onto the tRPC procedure it names. Its fields are that
 * procedure's input, and whether it needs a session is the procedure's own meta; the row says
 * only what HTTP adds. The OpenAPI document is written from these rows.
 */
export interface FormRoute {
  method: 'GET' | 'POST';
  url: `/users/${string}`;
  procedure: ProcedurePath;
  summary: string;
  /** The status of a success. */
  status: number;
  /** Hands out a session: a cookie, or the body for a client that sends X-Session-Delivery: token. */
  issuesSession?: boolean;
  /** The body's type: a form (the seed's style), or JSON for the WebAuthn structures of the passkey routes. */
  body?: 'json';
  /** The answer is a file to keep (`Content-Disposition: attachment`, named for the realm and the day). */
  download?: true;
  /** Problems this route answers besides those every route can. */
  problems: ProblemCode[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The row a /users/* route was registered from, which the OpenAPI document describes. */
    openapi?: FormRoute;
  }
}

/** The seed's form endpoints. A new /users/* route is a new row. */
export const FORM_ROUTES: readonly FormRoute[] = [
  {
    method: 'POST',
    url: '/users/register',
    procedure: 'account.register',
    status: 201,
    summary:
      "Create an account in the realm of the Host, and sign it in (in a realm that requires a confirmed address: no session, emailVerificationRequired); a verification link is mailed unless the address's mail cap is reached.",
    issuesSession: true,
    problems: ['email_taken', 'rate_limited', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/change_password',
    procedure: 'account.changePassword',
    status: 200,
    summary: "Change the signed-in user's password; other sessions end, this one gets a new token.",
    issuesSession: true,
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/login',
    procedure: 'account.signIn',
    status: 200,
    summary:
      'Sign in with email and password. For an account with two-step sign-in the right password starts no session: `401 second_factor_required` with `methods`, and a pending sign-in (an HttpOnly cookie valid 5 minutes, or `pendingToken` in the body for a client that sends `X-Session-Delivery: token`) to complete at POST /users/login/second_factor.',
    issuesSession: true,
    problems: ['rate_limited', 'too_many_attempts', 'server_busy', 'email_not_verified', 'second_factor_required'],
  },
  {
    method: 'POST',
    url: '/users/login/second_factor',
    procedure: 'account.signInSecondStep',
    status: 200,
    summary:
      "Complete a sign-in with its second step: `code` (six digits from the authenticator app, or a recovery code `xxxxx-xxxxx`) and the pending sign-in (its cookie, or `pending_token`). Answers as POST /users/login does. A wrong, used or replayed code is `422` on `code`, counted by the lockout like a wrong password, with `attemptsLeft` once 2 or fewer tries remain; the last try (the fifth wrong code, or the lockout's limit) ends the pending sign-in: `429 too_many_codes`, `Retry-After` saying when this client may sign in again. An expired pending sign-in or another realm's is `401 sign_in_expired`: sign in again with the password.",
    issuesSession: true,
    problems: ['sign_in_expired', 'rate_limited', 'too_many_attempts', 'too_many_codes'],
  },
  {
    method: 'POST',
    url: '/users/logout',
    procedure: 'account.signOut',
    status: 200,
    summary: 'Sign out: the session ends and its cookie is cleared.',
    problems: [],
  },
  {
    method: 'GET',
    url: '/users/me',
    procedure: 'account.me',
    status: 200,
    summary: 'The signed-in user, and its two-step sign-in: `twoStep.enabled`, `methods`, `recoveryCodesLeft`.',
    problems: [],
  },
  // The account's security page. GET routes take their fields from the query.
  {
    method: 'GET',
    url: '/users/sessions',
    procedure: 'security.sessions',
    status: 200,
    summary:
      "The account's live sessions: device, shortened address, created and last used; `current` marks the caller's own.",
    problems: [],
  },
  {
    method: 'POST',
    url: '/users/revoke_session',
    procedure: 'security.revokeSession',
    status: 200,
    summary:
      "End one of the account's sessions (`session_id` from GET /users/sessions). Ending another session needs `current_password` (checked under the limits of a password change); ending the caller's own signs it out and needs none. An id that is not one of the account's sessions, malformed or another account's, is 404. Counted against the account's and the address's limit on writes.",
    problems: ['not_found', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/revoke_other_sessions',
    procedure: 'security.revokeOtherSessions',
    status: 200,
    summary:
      "End every session of the account except the caller's, after checking `current_password` (the limits of a password change apply). Counted against the account's and the address's limit on writes.",
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'GET',
    url: '/users/activity',
    procedure: 'security.activity',
    status: 200,
    summary: "The account's events, newest first, 50 a page; pass `nextCursor` as `?cursor=` for the next page.",
    problems: [],
  },
  {
    method: 'POST',
    url: '/users/change_name',
    procedure: 'security.changeName',
    status: 200,
    summary:
      "Change the account's display name (the registration rules apply). Counted against the account's and the address's limit on writes.",
    problems: ['rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/delete_account',
    procedure: 'security.deleteAccount',
    status: 200,
    summary:
      'Delete the account after checking its password (the limits of a password change apply): its sessions end, and the email may be registered again.',
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  // Two-step sign-in.
  {
    method: 'POST',
    url: '/users/totp/setup',
    procedure: 'twoStep.setupTotp',
    status: 200,
    summary:
      'Start setting up an authenticator app (no fields): a new secret (base32, 160 bits), its `otpauth://` URI and the URI as a QR code (an SVG `data:` URL). Nothing is active until POST /users/totp/enable; a second call replaces the pending secret. `409 two_step_on` while an app is on.',
    problems: ['two_step_on', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/totp/enable',
    procedure: 'twoStep.enableTotp',
    status: 200,
    summary:
      "Turn the authenticator app on: `code` (what the app shows for the pending secret) and `current_password` (counted by the lockout). Answers ten single-use `recoveryCodes`, shown this once. When this turns two-step sign-in on, every other session and known device of the account ends (the caller's stays). An account already on through passkeys binds the app with a second factor too: a session that signed in through its second step (or with a passkey, or confirmed one at POST /users/passkeys/recheck) in the last 5 minutes, or `recovery_code` (else `422 second_factor_recheck_required` on `recovery_code`). A wrong password or code is `422` on that field and changes nothing; `409 totp_not_set_up` without a set-up.",
    problems: ['two_step_on', 'totp_not_set_up', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/totp/disable',
    procedure: 'twoStep.disableTotp',
    status: 200,
    summary:
      'Turn the authenticator app off: `current_password` and `code` (a current code or a recovery code). Its secret is deleted; when no passkey is left, two-step sign-in turns off and the recovery codes go too. A wrong code is `422` on `code`, counted like a wrong password. `409 totp_off` when the app is not on.',
    problems: ['totp_off', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/recovery_codes',
    procedure: 'twoStep.regenerateRecoveryCodes',
    status: 200,
    summary:
      'Ten new recovery codes (`current_password`); the old ones stop working at once. A second factor too: a session that signed in through its second step (or with a passkey, or confirmed one at POST /users/passkeys/recheck) in the last 5 minutes, or `code` (an app code or a recovery code, counted like a password when wrong); else `422 second_factor_recheck_required` on `code`, before the password is checked. `409 two_step_off` when two-step sign-in is off.',
    problems: ['two_step_off', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  // Passkeys (WebAuthn). Their bodies are JSON: the options and answers are WebAuthn's JSON structures.
  {
    method: 'GET',
    url: '/users/passkeys',
    procedure: 'passkeys.list',
    status: 200,
    summary:
      "The account's passkeys: name, the authenticator's kind where its AAGUID is known, synced or not, created and last used.",
    problems: [],
  },
  {
    method: 'POST',
    url: '/users/passkeys/register/options',
    procedure: 'passkeys.registrationOptions',
    status: 200,
    body: 'json',
    summary:
      "Options for navigator.credentials.create() to add a passkey (a discoverable credential; the realm's host is the RP ID). A session whose password was last proved more than 5 minutes ago (or never: a passkey sign-in) sends `current_password` (else `422 password_recheck_required` on it). With two-step sign-in on, a session that proved no second factor in the last 5 minutes (its sign-in's second step, a passkey sign-in, POST /users/passkeys/recheck) sends `code`, an app code or a recovery code (else `422 second_factor_recheck_required` on it; both asks come in one answer).",
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/register',
    procedure: 'passkeys.add',
    status: 201,
    body: 'json',
    summary:
      "Add the passkey: `response` is the JSON of the new credential (PublicKeyCredential.toJSON()), `name` optional. The first second factor of the account turns two-step sign-in on, ends every other session and known device of the account (the caller's stays), and answers ten `recoveryCodes` (only if it has none). `400 passkey_challenge_invalid` for an expired or used challenge, `422 passkey_rejected` when the answer does not verify.",
    problems: ['passkey_challenge_invalid', 'passkey_rejected', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/rename',
    procedure: 'passkeys.rename',
    status: 200,
    body: 'json',
    summary: "Rename one of the account's passkeys (`passkey_id`, `name`); another account's or an unknown id is 404.",
    problems: ['not_found', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/remove',
    procedure: 'passkeys.remove',
    status: 200,
    body: 'json',
    summary:
      'Remove a passkey (`passkey_id`, `current_password`, counted like every password check). Removing the last second factor turns two-step sign-in off, so it needs a second factor too: a session that proved one in the last 5 minutes (its second step, a passkey sign-in, POST /users/passkeys/recheck), or `code` (an app code or a recovery code, counted like a password when wrong); else `422 second_factor_recheck_required` on `code`.',
    problems: ['not_found', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/recheck/options',
    procedure: 'passkeys.recheckOptions',
    status: 200,
    body: 'json',
    summary:
      "Options for navigator.credentials.get() to confirm a second factor with one of the account's passkeys (user verification preferred), for a signed-in session asked for one (`second_factor_recheck_required`). `409 two_step_off` without two-step sign-in.",
    problems: ['two_step_off', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/recheck',
    procedure: 'passkeys.recheck',
    status: 200,
    body: 'json',
    summary:
      "Confirm a second factor with a passkey (`response`, the assertion's JSON): for the next 5 minutes this session may bind or remove factors without a code. `400 passkey_challenge_invalid` for an expired or used challenge; `422 passkey_rejected` when the assertion does not hold, counted by the lockout like a wrong code.",
    problems: ['passkey_challenge_invalid', 'passkey_rejected', 'rate_limited', 'too_many_attempts'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/login/options',
    procedure: 'passkeys.signInOptions',
    status: 200,
    body: 'json',
    summary:
      'Options for navigator.credentials.get() to sign in with a passkey alone (no email; user verification required).',
    problems: ['rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/login',
    procedure: 'passkeys.signIn',
    status: 200,
    body: 'json',
    summary:
      "Sign in with a passkey alone: `response` is the assertion's JSON. A complete sign-in (no password, no second step), answered as POST /users/login. A failed assertion is `422 passkey_rejected` and counts in the lockout per client like a wrong password.",
    issuesSession: true,
    problems: [
      'passkey_challenge_invalid',
      'passkey_rejected',
      'rate_limited',
      'too_many_attempts',
      'email_not_verified',
    ],
  },
  {
    method: 'POST',
    url: '/users/passkeys/second_factor/options',
    procedure: 'passkeys.secondStepOptions',
    status: 200,
    body: 'json',
    summary:
      "Options for the second step of a pending sign-in done with a passkey (the pending sign-in as its cookie or `pending_token`): the account's passkeys, user verification preferred.",
    problems: ['sign_in_expired', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/passkeys/second_factor',
    procedure: 'passkeys.secondStep',
    status: 200,
    body: 'json',
    summary:
      'Complete a pending sign-in with a passkey (`response`, and `pending_token` unless the cookie is sent); answered as POST /users/login/second_factor (a failed assertion is `422 passkey_rejected`, counted like a wrong code).',
    issuesSession: true,
    problems: [
      'passkey_challenge_invalid',
      'passkey_rejected',
      'sign_in_expired',
      'rate_limited',
      'too_many_attempts',
      'too_many_codes',
    ],
  },
  // Changing the account's email address.
  {
    method: 'POST',
    url: '/users/change_email',
    procedure: 'emailChange.request',
    status: 202,
    summary:
      'Ask to move the account to `new_email` (normalized as at registration), with `current_password` (counted by the lockout). A confirmation link goes to the NEW address (single use, 24 hours); the OLD address is told, with a link to stop the change. Nothing changes until the link is used. The answer is the same when another account of the realm has that address (that address is told someone tried to move an account onto it). The same address as now is `422 email_unchanged` on `new_email`.',
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'GET',
    url: '/users/email_change',
    procedure: 'emailChange.pending',
    status: 200,
    summary: 'The change of address waiting for its link, if any: `{ pending: { newEmail, expiresAt } | null }`.',
    problems: [],
  },
  {
    method: 'POST',
    url: '/users/cancel_email_change',
    procedure: 'emailChange.cancel',
    status: 200,
    summary: 'Stop a change of address asked for: its link no longer works.',
    problems: ['rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/confirm_email_change',
    procedure: 'emailChange.confirm',
    status: 200,
    summary:
      "Use a change-of-address link's `token` (no session needed): the new address becomes the account's, confirmed; every other session ends; the old address is told. `409 email_taken` when another account of the realm took the address meanwhile (nothing changes); `400 email_change_token_invalid` for a link that does not work.",
    problems: ['email_change_token_invalid', 'email_taken'],
  },
  // A copy of one's data. A POST only: a download that records an event and mails a notice is
  // never something another site can start with a link (a GET navigation carries the session).
  {
    method: 'POST',
    url: '/users/export',
    procedure: 'accountData.export',
    status: 200,
    download: true,
    summary:
      'Everything the service holds about the account, as a JSON file (docs/account-export.schema.json). It needs a session that proved its password in the last 5 minutes, or `current_password` now (checked and counted like every password check; without it, a session that has not proved it lately is `422 password_recheck_required` on `current_password`). An account event, and a notice to the owner.',
    problems: ['rate_limited', 'too_many_attempts', 'server_busy'],
  },
  // The mailed-link flows.
  {
    method: 'POST',
    url: '/users/forgot_password',
    procedure: 'email.forgotPassword',
    status: 202,
    summary:
      'Ask for a password-reset link by mail. The answer is the same whether or not an account has that address: an address that had its share of links in the window (`RATE_LIMIT_MAIL_PER_EMAIL`, counted alike for addresses no account has) gets nothing sent, and `retryAfter` says in how many seconds it may ask again.',
    problems: ['rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/reset_password',
    procedure: 'email.resetPassword',
    status: 200,
    summary:
      "Set a new password with a reset link's token: every session and every known device of the account ends, and nobody is signed in (the caller's session cookie is cleared); sign in with the new password.",
    problems: ['reset_token_invalid', 'rate_limited', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/verify_email',
    procedure: 'email.verifyEmail',
    status: 200,
    summary:
      "Confirm the account's email address with a verification link's token. Opening the link confirms nothing: its page shows the address and posts this when the person asks.",
    problems: ['verify_token_invalid'],
  },
  {
    method: 'POST',
    url: '/users/resend_verification',
    procedure: 'email.resendVerification',
    status: 202,
    summary:
      "Mail the signed-in account a new verification link (nothing is sent once the address is confirmed); `429 rate_limited` with `Retry-After` when the address's mail cap is reached.",
    problems: ['rate_limited'],
  },
];
