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
  too_many_codes: 'Too many wrong codes. Sign in again with your password in {wait}.',
  server_busy: 'The server is busy. Try again in a few seconds.',
  not_ready: 'The service is not ready. Try again shortly.',
  internal: 'Something went wrong on our side.',
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
  code_attempts_left: 'Tries left for this sign-in: {attemptsLeft}.',
} as const;

export type MessageCode = keyof typeof en;

/** Every message code, in the order of the English table. */
export const MESSAGE_CODES = Object.keys(en) as MessageCode[];

const de: Record<MessageCode, string> = {
  required: 'Dieses Feld ist erforderlich.',
  invalid_type: 'Dieses Feld muss Text sein.',
  name_too_long: 'Verwenden Sie höchstens {max} Zeichen.',
  name_invalid_chars: 'Der Name darf keine Steuer-, Formatierungs- oder unsichtbaren Zeichen enthalten.',
  name_combining_marks: 'Verwenden Sie höchstens {max} Akzentzeichen auf einem Buchstaben.',
  invalid_email: 'Geben Sie eine gültige E-Mail-Adresse ein.',
  email_too_long: 'Die E-Mail-Adresse darf höchstens {max} Zeichen lang sein.',
  email_local_too_long: 'Der Teil vor dem @ darf höchstens {max} Zeichen lang sein.',
  email_taken: 'Hier gibt es bereits ein Konto mit dieser E-Mail-Adresse.',
  password_too_short: 'Verwenden Sie mindestens {min} Zeichen.',
  password_too_long: 'Verwenden Sie höchstens {max} Zeichen.',
  password_too_common:
    'Dieses Passwort ist leicht zu erraten: Es ist ein verbreitetes Passwort oder ein Muster (Wiederholungen, Folgen, Tastaturreihen, häufige Wörter mit Ziffern). Verwenden Sie stattdessen einige Wörter, die nichts miteinander zu tun haben.',
  password_too_similar:
    'Ohne Ihren Namen, Ihre E-Mail-Adresse oder den Namen dieser Website ist der Rest dieses Passworts leicht zu erraten.',
  password_mismatch: 'Die Passwörter stimmen nicht überein.',
  password_unchanged: 'Das neue Passwort muss sich vom aktuellen unterscheiden.',
  password_incorrect: 'Das Passwort ist falsch.',
  credentials_invalid: 'E-Mail-Adresse oder Passwort ist falsch.',
  cursor_invalid: 'Dieser Seitenverweis ist ungültig: Beginnen Sie wieder bei der ersten Seite.',
  reset_token_invalid: 'Dieser Link ist nicht mehr gültig. Fordern Sie einen neuen an.',
  verify_token_invalid: 'Dieser Link ist nicht mehr gültig. Fordern Sie einen neuen an.',
  validation_failed: 'Einige Felder sind ungültig.',
  invalid_body: 'Der Inhalt der Anfrage konnte nicht gelesen werden.',
  invalid_host: 'Die Anfrage nennt keinen gültigen Host, oder ihr Ziel nennt einen anderen.',
  duplicate_field: 'Ein Feld wurde mehrfach gesendet.',
  unauthenticated: 'Sie sind nicht angemeldet oder Ihre Sitzung ist abgelaufen.',
  cross_origin: 'Ursprungsübergreifende Anfragen sind nicht erlaubt.',
  not_found: 'Nicht gefunden.',
  realm_not_found: 'Diesen Bereich gibt es hier nicht.',
  method_not_allowed: 'Diese Methode ist hier nicht erlaubt.',
  payload_too_large: 'Der Inhalt der Anfrage ist zu groß.',
  headers_too_large: 'Die Header der Anfrage sind zu groß.',
  unsupported_media_type: 'Senden Sie den Inhalt als application/x-www-form-urlencoded.',
  unsupported_media_type_json: 'Senden Sie den Inhalt als application/json.',
  rate_limited: 'Zu viele Anfragen. Versuchen Sie es in {wait} erneut.',
  too_many_attempts:
    'Zu viele Fehlversuche (Passwörter oder Codes) für dieses Konto. Versuchen Sie es in {wait} erneut.',
  too_many_codes: 'Zu viele falsche Codes. Melden Sie sich in {wait} erneut mit Ihrem Passwort an.',
  server_busy: 'Der Server ist ausgelastet. Versuchen Sie es in einigen Sekunden erneut.',
  not_ready: 'Der Dienst ist noch nicht bereit. Versuchen Sie es gleich erneut.',
  internal: 'Bei uns ist etwas schiefgelaufen.',
  email_not_verified: 'Bestätigen Sie zuerst Ihre E-Mail-Adresse mit dem Link, den wir Ihnen gesendet haben.',
  totp_code_format: 'Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App ein.',
  second_step_code_format:
    'Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App oder einen Wiederherstellungscode (xxxxx-xxxxx) ein.',
  code_incorrect: 'Dieser Code ist nicht richtig oder wurde bereits verwendet.',
  second_factor_required: 'Schließen Sie die Anmeldung mit Ihrem zweiten Schritt ab: einem Passkey oder einem Code.',
  sign_in_expired:
    'Diese Anmeldung ist abgelaufen oder wurde abgebrochen. Melden Sie sich erneut mit Ihrem Passwort an.',
  two_step_on:
    'Die Anmeldung in zwei Schritten ist bereits aktiv. Schalten Sie sie zuerst aus, um eine andere Authenticator-App einzurichten.',
  two_step_off: 'Die Anmeldung in zwei Schritten ist für dieses Konto nicht aktiv.',
  totp_not_set_up:
    'Beginnen Sie zuerst mit der Einrichtung: Scannen Sie den neuen QR-Code und geben Sie den Code ein, den Ihre App anzeigt.',
  passkey_challenge_invalid:
    'Diese Passkey-Anfrage ist abgelaufen oder wurde bereits verwendet. Versuchen Sie es erneut.',
  passkey_rejected:
    'Dieser Passkey konnte hier nicht bestätigt werden. Versuchen Sie es erneut oder melden Sie sich auf andere Weise an.',
  password_recheck_required: 'Geben Sie Ihr aktuelles Passwort ein, um fortzufahren.',
  second_factor_recheck_required:
    'Bestätigen Sie zu Ihrer Sicherheit mit Ihrem zweiten Schritt, dass Sie es sind: mit einem Code oder einem Passkey.',
  recovery_code_format: 'Geben Sie einen Wiederherstellungscode (xxxxx-xxxxx) ein.',
  totp_off: 'Die Authenticator-App ist für dieses Konto nicht eingeschaltet.',
  email_unchanged: 'Das ist bereits die Adresse Ihres Kontos.',
  email_change_token_invalid: 'Dieser Link ist nicht mehr gültig. Fordern Sie die Änderung erneut an.',
  code_attempts_left: 'Verbleibende Versuche für diese Anmeldung: {attemptsLeft}.',
};

const fr: Record<MessageCode, string> = {
  required: 'Ce champ est obligatoire.',
  invalid_type: 'Ce champ doit être du texte.',
  name_too_long: 'Utilisez au plus {max} caractères.',
  name_invalid_chars: 'Le nom ne doit pas contenir de caractères de contrôle, de mise en forme ou invisibles.',
  name_combining_marks: 'Utilisez au plus {max} accents sur une même lettre.',
  invalid_email: 'Saisissez une adresse e-mail valide.',
  email_too_long: "L'adresse e-mail doit comporter au plus {max} caractères.",
  email_local_too_long: 'La partie avant le @ doit comporter au plus {max} caractères.',
  email_taken: 'Un compte existe déjà ici avec cette adresse e-mail.',
  password_too_short: 'Utilisez au moins {min} caractères.',
  password_too_long: 'Utilisez au plus {max} caractères.',
  password_too_common:
    'Ce mot de passe est facile à deviner\u00a0: c’est un mot de passe courant ou un motif (répétitions, suites, rangées du clavier, mots courants suivis de chiffres). Utilisez plutôt quelques mots sans rapport entre eux.',
  password_too_similar:
    'Sans votre nom, votre adresse e-mail ou le nom de ce site, le reste de ce mot de passe est facile à deviner.',
  password_mismatch: 'Les mots de passe ne correspondent pas.',
  password_unchanged: "Le nouveau mot de passe doit être différent de l'actuel.",
  password_incorrect: 'Le mot de passe est incorrect.',
  credentials_invalid: "L'adresse e-mail ou le mot de passe est incorrect.",
  cursor_invalid: "Ce lien de page n'est pas valide\u00a0: recommencez à la première page.",
  reset_token_invalid: "Ce lien n'est plus valide. Demandez-en un nouveau.",
  verify_token_invalid: "Ce lien n'est plus valide. Demandez-en un nouveau.",
  validation_failed: 'Certains champs ne sont pas valides.',
  invalid_body: 'Le corps de la requête est illisible.',
  invalid_host: 'La requête ne nomme aucun hôte valide, ou sa cible en nomme un autre.',
  duplicate_field: 'Un champ a été envoyé plusieurs fois.',
  unauthenticated: "Vous n'êtes pas connecté ou votre session a expiré.",
  cross_origin: 'Les requêtes d’une autre origine ne sont pas autorisées.',
  not_found: 'Introuvable.',
  realm_not_found: "Ce domaine n'existe pas ici.",
  method_not_allowed: "Cette méthode n'est pas autorisée ici.",
  payload_too_large: 'Le corps de la requête est trop volumineux.',
  headers_too_large: 'Les en-têtes de la requête sont trop volumineux.',
  unsupported_media_type: 'Envoyez le corps au format application/x-www-form-urlencoded.',
  unsupported_media_type_json: 'Envoyez le corps au format application/json.',
  rate_limited: 'Trop de requêtes. Réessayez dans {wait}.',
  too_many_attempts: 'Trop d’essais erronés (mots de passe ou codes) pour ce compte. Réessayez dans {wait}.',
  too_many_codes: 'Trop de codes erronés. Reconnectez-vous avec votre mot de passe dans {wait}.',
  server_busy: 'Le serveur est surchargé. Réessayez dans quelques secondes.',
  not_ready: "Le service n'est pas prêt. Réessayez dans un instant.",
  internal: 'Une erreur est survenue de notre côté.',
  email_not_verified: "Confirmez d'abord votre adresse e-mail avec le lien que nous vous avons envoyé.",
  totp_code_format: "Saisissez le code à 6 chiffres de votre application d'authentification.",
  second_step_code_format:
    "Saisissez le code à 6 chiffres de votre application d'authentification, ou un code de récupération (xxxxx-xxxxx).",
  code_incorrect: "Ce code n'est pas correct, ou il a déjà été utilisé.",
  second_factor_required: 'Terminez la connexion avec votre deuxième étape : une clé d’accès ou un code.',
  sign_in_expired: 'Cette connexion a expiré ou a été annulée. Reconnectez-vous avec votre mot de passe.',
  two_step_on:
    "La connexion en deux étapes est déjà activée. Désactivez-la d'abord pour configurer une autre application d'authentification.",
  two_step_off: "La connexion en deux étapes n'est pas activée pour ce compte.",
  totp_not_set_up:
    "Commencez d'abord la configuration : scannez le nouveau code QR, puis saisissez le code affiché par votre application.",
  passkey_challenge_invalid: 'Cette demande de clé d’accès a expiré ou a déjà été utilisée. Réessayez.',
  passkey_rejected: 'Cette clé d’accès n’a pas pu être vérifiée ici. Réessayez, ou connectez-vous d’une autre manière.',
  password_recheck_required: 'Saisissez votre mot de passe actuel pour continuer.',
  second_factor_recheck_required:
    'Pour votre sécurité, confirmez qu’il s’agit bien de vous avec votre deuxième étape : un code ou une clé d’accès.',
  recovery_code_format: 'Saisissez un code de récupération (xxxxx-xxxxx).',
  totp_off: 'L’application d’authentification n’est pas activée pour ce compte.',
  email_unchanged: 'C’est déjà l’adresse de votre compte.',
  email_change_token_invalid: 'Ce lien n’est plus valide. Demandez à nouveau le changement.',
  code_attempts_left: 'Essais restants pour cette connexion\u00a0: {attemptsLeft}.',
};

const TABLES: Record<Locale, Record<MessageCode, string>> = { en, de, fr };

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
  return fillTemplate(TABLES[locale][code], all);
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
