// The one registry of user-facing error texts, shared by the API, the form gateway and the web app,
// so a field error reads the same wherever it appears. Codes are stable; texts may change.
export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

const en = {
  // field errors
  required: 'This field is required.',
  invalid_type: 'This field must be text.',
  name_too_long: 'Use at most {max} characters.',
  name_invalid_chars: 'The name must not contain control, formatting or invisible characters.',
  name_combining_marks: 'Use at most {max} accent marks on one letter.',
  invalid_email: 'Enter a valid email address.',
  email_too_long: 'The email address must be at most {max} characters.',
  email_local_too_long: 'The part before the @ must be at most {max} characters.',
  email_taken: 'An account with this email address already exists here.',
  password_too_short: 'Use at least {min} characters.',
  password_too_long: 'Use at most {max} characters.',
  password_too_common:
    'This password is easy to guess: it is a common password or a pattern (repeats, sequences, keyboard rows, common words with digits). Use a few unrelated words instead.',
  password_too_similar:
    'Without your name, email address or the name of this site, what remains of this password is easy to guess.',
  password_mismatch: 'The passwords do not match.',
  password_unchanged: 'The new password must differ from the current one.',
  password_incorrect: 'The password is incorrect.',
  credentials_invalid: 'The email address or password is incorrect.',
  cursor_invalid: 'This page link is not valid: start again from the first page.',
  reset_token_invalid: 'This link is no longer valid. Ask for a new one.',
  verify_token_invalid: 'This link is no longer valid. Ask for a new one.',
  // problems (titles)
  validation_failed: 'Some fields are not valid.',
  invalid_body: 'The request body could not be read.',
  invalid_host: 'The request names no valid host, or its target names another one.',
  duplicate_field: 'A field was sent more than once.',
  unauthenticated: 'You are not signed in, or your session has expired.',
  cross_origin: 'Cross-origin requests are not allowed.',
  not_found: 'Not found.',
  realm_not_found: 'There is no such realm here.',
  method_not_allowed: 'This method is not allowed here.',
  payload_too_large: 'The request body is too large.',
  headers_too_large: 'The request headers are too large.',
  unsupported_media_type: 'Send the body as application/x-www-form-urlencoded.',
  unsupported_media_type_json: 'Send the body as application/json.',
  rate_limited: 'Too many requests. Try again in {wait}.',
  too_many_attempts: 'Too many failed attempts (passwords or codes) for this account. Try again in {wait}.',
  too_many_codes: 'Too many wrong codes. Try again in {wait}.',
  server_busy: 'The server is busy. Try again in a few seconds.',
  not_ready: 'The service is not ready. Try again shortly.',
  origin_unknown: 'This site has no public address configured, so links and passkeys cannot be made for it.',
  internal: 'Something went wrong on our side.',
  provider_unknown: 'There is no such way to sign in here.',
  upstream_failed: 'Signing in with that provider did not work. Try another way.',
  upstream_unavailable: 'That provider cannot be reached now. Try again later.',
  upstream_link_required:
    'An account with this address exists. Sign in to it with its own password to connect the provider.',
  upstream_email_unverified:
    'An account with this address exists, and the provider has not confirmed it. Sign in with your password.',
  upstream_email_missing: 'The provider gave no email address. Try another way.',
  connection_taken: 'That provider account belongs to another account here.',
  connection_last_way_in: 'Your only way to sign in: set a password or add a passkey first.',
  connection_recheck_required: 'Sign in again (password or second step) to connect an account.',
  interaction_expired: 'This sign-in to an app has expired or is already finished. Go back to the app and start again.',
  email_not_verified: 'Confirm your email address first, with the link we sent you.',
  totp_code_format: 'Enter the 6-digit code from your authenticator app.',
  second_step_code_format: 'Enter the 6-digit code from your authenticator app, or a recovery code (xxxxx-xxxxx).',
  code_incorrect: 'This code is not correct, or it was already used.',
  second_factor_required: 'Finish signing in with your second step: a passkey or a code.',
  sign_in_expired: 'This sign-in has expired or was cancelled. Sign in again with your password.',
  two_step_on: 'Two-step sign-in is already on. Turn it off first to set up another authenticator app.',
  two_step_off: 'Two-step sign-in is not on for this account.',
  totp_not_set_up: 'Start the set-up first: scan the new QR code, then enter the code your app shows.',
  passkey_challenge_invalid: 'This passkey request has expired or was already used. Try again.',
  passkey_rejected: 'This passkey could not be verified here. Try again, or use another way to sign in.',
  password_recheck_required: 'Enter your current password to continue.',
  second_factor_recheck_required: 'For your security, confirm it is you with your second step: a code or a passkey.',
  recovery_code_format: 'Enter a recovery code (xxxxx-xxxxx).',
  totp_off: 'The authenticator app is not on for this account.',
  email_unchanged: 'This is already the address of your account.',
  email_change_token_invalid: 'This link is no longer valid. Ask for the change again.',
} as const;

export type MessageCode = keyof typeof en;

/** Every message code, in the order of the English table. */
export const MESSAGE_CODES = Object.keys(en) as MessageCode[];

/** One language's messages. */
export type MessageTable = Record<MessageCode, string>;

// English is always here; the other languages load on demand, each a chunk of its own in the
// browser, so a page carries only its own language's messages: the server has every language
// (all-messages.ts), a browser loads its page's before the app takes the page over.
const TABLES: Partial<Record<Locale, MessageTable>> = { en };
const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<{ messages: MessageTable }>> = {
  de: () => import('./messages-de.js'),
  fr: () => import('./messages-fr.js'),
};

/** Makes a language's messages available to message(). */
export function addMessages(locale: Locale, table: MessageTable): void {
  TABLES[locale] = table;
}

/** Loads a language's messages (once); until then message() answers in English. */
export async function loadMessages(locale: Locale): Promise<void> {
  if (TABLES[locale] || locale === 'en') return;
  addMessages(locale, (await LOADERS[locale]()).messages);
}

export function isMessageCode(code: string): code is MessageCode {
  return Object.hasOwn(en, code);
}

/** A text with its `{name}` placeholders filled in from params; a missing one (or one that is no plain value) becomes empty. */
export function fillTemplate(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    return typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'bigint' ||
      typeof value === 'boolean'
      ? String(value)
      : '';
  });
}

export function message(
  code: MessageCode,
  locale: Locale = DEFAULT_LOCALE,
  params: Record<string, unknown> = {},
): string {
  const all =
    typeof params.retryAfter === 'number' ? { wait: humanWait(params.retryAfter, locale), ...params } : params;
  return fillTemplate((TABLES[locale] ?? en)[code], all);
}

const ABOUT: Record<Locale, string> = { en: 'about', de: 'etwa', fr: 'environ' };

// Building an Intl formatter costs far more than using one, and every 429 and 503 says a wait.
const unitFormats = new Map<string, Intl.NumberFormat>();
function unitFormat(locale: Locale, unit: string): Intl.NumberFormat {
  const key = `${locale} ${unit}`;
  let format = unitFormats.get(key);
  if (!format)
    unitFormats.set(key, (format = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' })));
  return format;
}

/**
 * A wait as people say it: "45 seconds", "about 10 minutes", "about 2 hours" (rounded up, so
 * trying at the time said works), in the locale's words for the units.
 */
export function humanWait(seconds: number, locale: Locale): string {
  const s = Math.max(1, Math.ceil(seconds));
  const [value, unit] =
    s < 60 ? [s, 'second'] : s < 3600 ? [Math.ceil(s / 60), 'minute'] : [Math.ceil(s / 3600), 'hour'];
  const amount = unitFormat(locale, unit).format(value);
  return unit === 'second' ? amount : `${ABOUT[locale]} ${amount}`;
}

/** Picks the first supported locale from a preference list such as navigator.languages. */
export function pickLocale(preferred: readonly string[]): Locale {
  for (const tag of preferred) {
    const base = tag.trim().toLowerCase().split('-')[0];
    const hit = LOCALES.find((l) => l === base);
    if (hit) return hit;
  }
  return DEFAULT_LOCALE;
}
