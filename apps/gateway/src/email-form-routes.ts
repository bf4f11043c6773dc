import type { RouteDoc } from './openapi.js';

/** The form routes of the mailed-link flows (spread into FORM_ROUTES). */
export const EMAIL_FORM_ROUTES: readonly (RouteDoc & { method: 'POST'; url: `/users/${string}` })[] = [
  {
    method: 'POST',
    url: '/users/forgot_password',
    procedure: 'email.forgotPassword',
    status: 202,
    summary: "Ask for a password-reset link by mail. The answer is the same whether or not an account has that address, and when the address's mail cap is reached (then nothing is sent).",
    problems: ['rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/reset_password',
    procedure: 'email.resetPassword',
    status: 200,
    summary: "Set a new password with a reset link's token: every session and every known device of the account ends, and nobody is signed in (the caller's session cookie is cleared); sign in with the new password.",
    problems: ['reset_token_invalid', 'rate_limited', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/verify_email',
    procedure: 'email.verifyEmail',
    status: 200,
    summary: "Confirm the account's email address with a verification link's token. Opening the link confirms nothing: its page shows the address and posts this when the person asks.",
    problems: ['verify_token_invalid'],
  },
  {
    method: 'POST',
    url: '/users/resend_verification',
    procedure: 'email.resendVerification',
    status: 202,
    summary: "Mail the signed-in account a new verification link (nothing is sent once the address is confirmed); `429 rate_limited` with `Retry-After` when the address's mail cap is reached.",
    authenticated: true,
    problems: ['unauthenticated', 'rate_limited'],
  },
];
