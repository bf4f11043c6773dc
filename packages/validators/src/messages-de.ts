// German messages: the server has every language, a browser loads only its page's (loadMessages).
import type { MessageTable } from './messages.js';

export const messages: MessageTable = {
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
  too_many_codes: 'Zu viele falsche Codes. Versuchen Sie es in {wait} erneut.',
  server_busy: 'Der Server ist ausgelastet. Versuchen Sie es in einigen Sekunden erneut.',
  not_ready: 'Der Dienst ist noch nicht bereit. Versuchen Sie es gleich erneut.',
  origin_unknown:
    'Für diese Seite ist keine öffentliche Adresse eingerichtet; Links und Passkeys können nicht erstellt werden.',
  internal: 'Bei uns ist etwas schiefgelaufen.',
  provider_unknown: 'Diese Anmeldemöglichkeit gibt es hier nicht.',
  upstream_failed:
    'Die Anmeldung über diesen Anbieter hat nicht geklappt. Versuchen Sie es erneut oder melden Sie sich anders an.',
  upstream_unavailable:
    'Dieser Anmeldeanbieter ist gerade nicht erreichbar. Versuchen Sie es später erneut oder melden Sie sich anders an.',
  upstream_link_required:
    'Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melden Sie sich einmal mit seinem eigenen Passwort (und dem zweiten Schritt) an, um den Anbieter zu verbinden.',
  upstream_email_unverified:
    'Es gibt bereits ein Konto mit dieser E-Mail-Adresse, und der Anbieter hat die Adresse nicht bestätigt. Melden Sie sich stattdessen mit Ihrem Passwort an.',
  upstream_email_missing: 'Der Anbieter hat keine E-Mail-Adresse übermittelt. Melden Sie sich anders an.',
  connection_taken: 'Dieses Konto beim Anbieter ist bereits mit einem anderen Konto hier verbunden.',
  connection_last_way_in:
    'Dies ist Ihre einzige Anmeldemöglichkeit. Legen Sie zuerst ein Passwort fest oder fügen Sie einen Passkey hinzu.',
  connection_recheck_required:
    'Um ein Konto zu verbinden, melden Sie sich zuerst erneut an (Passwort oder zweiter Schritt): Das darf höchstens fünf Minuten her sein.',
  interaction_expired:
    'Diese Anmeldung bei einer App ist abgelaufen oder schon abgeschlossen. Gehen Sie zurück zur App und beginnen Sie erneut.',
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
};
