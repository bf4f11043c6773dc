import type { RouteDoc } from './openapi.js';

/** The form routes of the account's security page (spread into FORM_ROUTES). GET routes take their fields from the query. */
export const SECURITY_FORM_ROUTES: readonly (RouteDoc & { method: 'GET' | 'POST'; url: `/users/${string}` })[] = [
  {
    method: 'GET',
    url: '/users/sessions',
    procedure: 'security.sessions',
    status: 200,
    summary: "The account's live sessions: device, shortened address, created and last used; `current` marks the caller's own.",
    authenticated: true,
    problems: ['unauthenticated'],
  },
  {
    method: 'POST',
    url: '/users/revoke_session',
    procedure: 'security.revokeSession',
    status: 200,
    summary: "End one of the account's sessions (`session_id` from GET /users/sessions). Ending another session needs `current_password` (checked under the limits of a password change); ending the caller's own signs it out and needs none. An id that is not one of the account's sessions, malformed or another account's, is 404. Counted against the account's and the address's limit on writes.",
    authenticated: true,
    problems: ['unauthenticated', 'not_found', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'POST',
    url: '/users/revoke_other_sessions',
    procedure: 'security.revokeOtherSessions',
    status: 200,
    summary: "End every session of the account except the caller's, after checking `current_password` (the limits of a password change apply). Counted against the account's and the address's limit on writes.",
    authenticated: true,
    problems: ['unauthenticated', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
  {
    method: 'GET',
    url: '/users/activity',
    procedure: 'security.activity',
    status: 200,
    summary: "The account's events, newest first, 50 a page; pass `nextCursor` as `?cursor=` for the next page.",
    authenticated: true,
    problems: ['unauthenticated'],
  },
  {
    method: 'POST',
    url: '/users/change_name',
    procedure: 'security.changeName',
    status: 200,
    summary: "Change the account's display name (the registration rules apply). Counted against the account's and the address's limit on writes.",
    authenticated: true,
    problems: ['unauthenticated', 'rate_limited'],
  },
  {
    method: 'POST',
    url: '/users/delete_account',
    procedure: 'security.deleteAccount',
    status: 200,
    summary: 'Delete the account after checking its password (the limits of a password change apply): its sessions end, and the email may be registered again.',
    authenticated: true,
    problems: ['unauthenticated', 'rate_limited', 'too_many_attempts', 'server_busy'],
  },
];
