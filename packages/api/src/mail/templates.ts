import type { Locale } from '@accounts/validators';

// The mails the service sends, each with a plain-text and an HTML part, in en, de and fr.
// What a mail needs is stored in its outbox row (its payload) and rendered when it is sent.

interface Base {
  /** The realm's display name, which the mail speaks for. */
  realmName: string;
  /** The account holder's name. */
  name: string;
}

export interface MailPayload {
  reset_password: Base & { link: string; validMinutes: number };
  verify_email: Base & { link: string; validHours: number };
  password_changed: Base & { at: string; ip: string | null; how: 'changed' | 'reset'; recoverLink: string };
  /** `device`: the browser and system as describeDevice() names them, never the User-Agent's text. */
  new_sign_in: Base & { at: string; ip: string | null; device: string | null; recoverLink: string };
  /** A change to two-step sign-in; `settingsLink`: its page. */
  two_step_changed: Base & { change: TwoStepChange; at: string; ip: string | null; settingsLink: string };
  /** To the NEW address: the link that moves the account onto it. */
  confirm_email_change: Base & { link: string; validHours: number };
  /** To the OLD address: a change was asked for; `cancelLink` stops it. */
  email_change_requested: Base & { at: string; ip: string | null; cancelLink: string; recoverLink: string };
  /** To an address another account of the realm already has: someone tried to move an account onto it. */
  email_change_attempt: Omit<Base, 'name'> & { at: string };
  /** To the OLD address: it was replaced (`newEmail` shown masked). */
  email_changed: Base & { at: string; ip: string | null; newEmail: string; recoverLink: string };
  /** A copy of the account's data was downloaded. */
  data_exported: Base & { at: string; ip: string | null; recoverLink: string };
  /** The account signed in to an app (an OpenID Connect client) for the first time; `appsLink`: the page that removes its access. */
  app_signed_in: Base & { appName: string; at: string; ip: string | null; appsLink: string; recoverLink: string };
  /** A provider (Google, GitHub, …) was connected to the account or removed from it; `settingsLink`: its page. */
  connection_changed: Base & {
    change: ConnectionChange;
    providerName: string;
    at: string;
    ip: string | null;
    settingsLink: string;
    recoverLink: string;
  };
  /** The service's operator disabled the account (`account disable`): it signs in no more. */
  account_disabled: Base & { at: string };
  /** The service's operator turned off the account's two-step sign-in (`account reset-second-factor`). */
  two_step_reset: Base & { at: string; settingsLink: string; recoverLink: string };
}

/** What happened to an account's two-step sign-in that its owner is told of. */
export type TwoStepChange =
  'enabled' | 'disabled' | 'recovery_codes_regenerated' | 'recovery_code_used' | 'passkey_added' | 'passkey_removed';

/** What happened to a connected account: added (by the owner, or by a sign-in that proved the address first), removed. */
export type ConnectionChange = 'added' | 'removed' | 'took_over';

export type MailTemplate = keyof MailPayload;
export const MAIL_TEMPLATES = [
  'reset_password',
  'verify_email',
  'password_changed',
  'new_sign_in',
  'two_step_changed',
  'confirm_email_change',
  'email_change_requested',
  'email_change_attempt',
  'email_changed',
  'data_exported',
  'app_signed_in',
  'connection_changed',
  'account_disabled',
  'two_step_reset',
] as const satisfies readonly MailTemplate[];

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  /** The link the mail is about, for the development log (never logged when mail goes out by SMTP). */
  link?: string;
}

/** A paragraph (text and HTML alike) or a link button. */
type Block = { p: string } | { link: string; label: string };

interface Parts {
  subject: string;
  blocks: Block[];
}

const when = (iso: string, locale: Locale) =>
  `${new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;

const unknown: Record<Locale, string> = { en: 'unknown', de: 'unbekannt', fr: 'inconnue' };

type Texts = { [T in MailTemplate]: (p: MailPayload[T], locale: Locale) => Parts };

const en: Texts = {
  reset_password: (p) => ({
    subject: `Reset your password for ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `Someone (hopefully you) asked to reset the password of your account at ${p.realmName}. Follow this link to choose a new one; it works once, for ${p.validMinutes} minutes:`,
      },
      { link: p.link, label: 'Choose a new password' },
      { p: 'If you did not ask for this, ignore this mail: your password stays as it is.' },
    ],
  }),
  verify_email: (p) => ({
    subject: `Confirm your email address for ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `Please confirm that this is your email address for your account at ${p.realmName}. The link works once, for ${p.validHours} hours:`,
      },
      { link: p.link, label: 'Confirm my email address' },
      { p: 'If you did not create this account, ignore this mail.' },
    ],
  }),
  password_changed: (p, l) => ({
    subject: `Your password for ${p.realmName} was ${p.how === 'reset' ? 'reset' : 'changed'}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `The password of your account at ${p.realmName} was ${p.how === 'reset' ? 'reset with a link sent to this address' : 'changed'} on ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}.`,
      },
      {
        p: 'If this was you, there is nothing to do. If it was not, reset your password now with this link, which signs out everyone else:',
      },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
  new_sign_in: (p, l) => ({
    subject: `New sign-in to your account at ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `Your account at ${p.realmName} was signed in to on ${when(p.at, l)} from a device it had not seen before (address ${p.ip ?? unknown.en}${p.device ? `, ${p.device}` : ''}).`,
      },
      {
        p: 'If this was you, there is nothing to do. If it was not, reset your password now with this link, which signs out everyone else:',
      },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
  two_step_changed: (p, l) => ({
    subject: {
      enabled: `Two-step sign-in is now on for ${p.realmName}`,
      disabled: `Two-step sign-in was turned off for ${p.realmName}`,
      recovery_codes_regenerated: `New recovery codes for ${p.realmName}`,
      recovery_code_used: `A recovery code was used to sign in to ${p.realmName}`,
      passkey_added: `A passkey was added to your account at ${p.realmName}`,
      passkey_removed: `A passkey was removed from your account at ${p.realmName}`,
    }[p.change],
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `${
          {
            enabled: 'Two-step sign-in with an authenticator app was turned on for your account',
            disabled: 'Two-step sign-in was turned off for your account',
            recovery_codes_regenerated: 'New recovery codes were made for your account (the old ones no longer work)',
            recovery_code_used: 'One of your recovery codes was used to sign in to your account',
            passkey_added: 'A passkey was added to your account',
            passkey_removed: 'A passkey was removed from your account',
          }[p.change]
        } at ${p.realmName} on ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}.`,
      },
      {
        p: 'If this was you, there is nothing to do. If it was not, reset your password now and check your two-step sign-in settings:',
      },
      { link: p.settingsLink, label: 'Two-step sign-in settings' },
    ],
  }),
  confirm_email_change: (p) => ({
    subject: `Confirm your new email address for ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `Someone (hopefully you) asked to move your account at ${p.realmName} to this email address. Follow this link to confirm it; it works once, for ${p.validHours} hours:`,
      },
      { link: p.link, label: 'Confirm my new email address' },
      { p: 'If you did not ask for this, ignore this mail: nothing changes.' },
    ],
  }),
  email_change_requested: (p, l) => ({
    subject: `A change of email address was asked for your account at ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, someone signed in to your account at ${p.realmName} asked to move it to another email address. Nothing changes until that address confirms it.`,
      },
      {
        p: 'If this was not you, reset your password now: that stops the change (its link no longer works) and signs everyone out of your account.',
      },
      { link: p.recoverLink, label: 'Reset my password' },
      { p: 'If you are signed in, you can also stop the change alone:' },
      { link: p.cancelLink, label: 'Stop the change' },
    ],
  }),
  email_change_attempt: (p, l) => ({
    subject: `Someone tried to use this email address at ${p.realmName}`,
    blocks: [
      { p: 'Hello,' },
      {
        p: `On ${when(p.at, l)}, someone asked to move another account at ${p.realmName} onto this email address, which already belongs to an account there. Nothing was changed, and there is nothing you need to do.`,
      },
    ],
  }),
  email_changed: (p, l) => ({
    subject: `Your account at ${p.realmName} has a new email address`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, your account at ${p.realmName} was moved to the email address ${p.newEmail}. This address no longer signs in to it.`,
      },
      { p: 'If this was not you, contact the service right away; you can also try to reset the password:' },
      { link: p.recoverLink, label: 'Reset the password' },
    ],
  }),
  data_exported: (p, l) => ({
    subject: `A copy of your data at ${p.realmName} was downloaded`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, a copy of everything ${p.realmName} holds about your account was downloaded.`,
      },
      { p: 'If this was not you, reset your password now:' },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
  app_signed_in: (p, l) => ({
    subject: `You signed in to ${p.appName} with your account at ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, your account at ${p.realmName} was used for the first time to sign in to the app ${p.appName}. The app may now see what you allowed it to.`,
      },
      { p: 'If this was you, there is nothing to do. You can remove the app’s access at any time:' },
      { link: p.appsLink, label: 'Apps with access' },
      { p: 'If it was not you, reset your password now, then remove the app’s access:' },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
  connection_changed: (p, l) => ({
    subject:
      p.change === 'removed'
        ? `Sign-in with ${p.providerName} was removed from your account at ${p.realmName}`
        : `Sign-in with ${p.providerName} was added to your account at ${p.realmName}`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p:
          p.change === 'removed'
            ? `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, signing in with ${p.providerName} was removed from your account at ${p.realmName}.`
            : `On ${when(p.at, l)}, from the address ${p.ip ?? unknown.en}, your account at ${p.realmName} was connected to ${p.providerName}: it can now be signed in to with that account.`,
      },
      ...(p.change === 'took_over'
        ? [
            {
              p: `${p.providerName} confirmed this address, which this account had never confirmed: the password set before and every session were removed, in case someone else had registered with your address.`,
            },
          ]
        : []),
      { p: 'Your connected accounts:' },
      { link: p.settingsLink, label: 'Connected accounts' },
      { p: 'If this was not you, reset your password now:' },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
  account_disabled: (p, l) => ({
    subject: `Your account at ${p.realmName} was disabled`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, the administrators of ${p.realmName} disabled your account there. It can no longer sign in, and every device signed in to it was signed out.`,
      },
      { p: 'If you think this is a mistake, contact the service.' },
    ],
  }),
  two_step_reset: (p, l) => ({
    subject: `Two-step sign-in was turned off for ${p.realmName} by its administrators`,
    blocks: [
      { p: `Hello ${p.name},` },
      {
        p: `On ${when(p.at, l)}, the administrators of ${p.realmName} turned off two-step sign-in for your account there, as is done for someone who lost their authenticator app and recovery codes: the app, your passkeys and your recovery codes were removed, and every device was signed out.`,
      },
      { p: 'If you asked for this, sign in with your password and set up two-step sign-in again:' },
      { link: p.settingsLink, label: 'Two-step sign-in settings' },
      { p: 'If you did not, reset your password now and contact the service:' },
      { link: p.recoverLink, label: 'Reset my password' },
    ],
  }),
};

const de: Texts = {
  reset_password: (p) => ({
    subject: `Passwort für ${p.realmName} zurücksetzen`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Jemand (hoffentlich Sie) hat angefordert, das Passwort Ihres Kontos bei ${p.realmName} zurückzusetzen. Über diesen Link wählen Sie ein neues; er funktioniert einmal, ${p.validMinutes} Minuten lang:`,
      },
      { link: p.link, label: 'Neues Passwort wählen' },
      { p: 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.' },
    ],
  }),
  verify_email: (p) => ({
    subject: `E-Mail-Adresse für ${p.realmName} bestätigen`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Bitte bestätigen Sie, dass dies Ihre E-Mail-Adresse für Ihr Konto bei ${p.realmName} ist. Der Link funktioniert einmal, ${p.validHours} Stunden lang:`,
      },
      { link: p.link, label: 'E-Mail-Adresse bestätigen' },
      { p: 'Wenn Sie dieses Konto nicht angelegt haben, ignorieren Sie diese E-Mail.' },
    ],
  }),
  password_changed: (p, l) => ({
    subject: `Ihr Passwort für ${p.realmName} wurde ${p.how === 'reset' ? 'zurückgesetzt' : 'geändert'}`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Das Passwort Ihres Kontos bei ${p.realmName} wurde am ${when(p.at, l)} von der Adresse ${p.ip ?? unknown.de} ${p.how === 'reset' ? 'über einen an diese Adresse gesendeten Link zurückgesetzt' : 'geändert'}.`,
      },
      {
        p: 'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort jetzt über diesen Link zurück; alle anderen werden dabei abgemeldet:',
      },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
  new_sign_in: (p, l) => ({
    subject: `Neue Anmeldung bei Ihrem Konto bei ${p.realmName}`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} wurde Ihr Konto bei ${p.realmName} von einem bisher unbekannten Gerät aus angemeldet (Adresse ${p.ip ?? unknown.de}${p.device ? `, ${p.device}` : ''}).`,
      },
      {
        p: 'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, setzen Sie Ihr Passwort jetzt über diesen Link zurück; alle anderen werden dabei abgemeldet:',
      },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
  two_step_changed: (p, l) => ({
    subject: {
      enabled: `Anmeldung in zwei Schritten für ${p.realmName} ist jetzt aktiv`,
      disabled: `Anmeldung in zwei Schritten für ${p.realmName} wurde ausgeschaltet`,
      recovery_codes_regenerated: `Neue Wiederherstellungscodes für ${p.realmName}`,
      recovery_code_used: `Ein Wiederherstellungscode wurde zur Anmeldung bei ${p.realmName} verwendet`,
      passkey_added: `Ein Passkey wurde Ihrem Konto bei ${p.realmName} hinzugefügt`,
      passkey_removed: `Ein Passkey wurde aus Ihrem Konto bei ${p.realmName} entfernt`,
    }[p.change],
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} wurde von der Adresse ${p.ip ?? unknown.de} aus ${
          {
            enabled: 'die Anmeldung in zwei Schritten mit einer Authenticator-App für Ihr Konto',
            disabled: 'die Anmeldung in zwei Schritten für Ihr Konto',
            recovery_codes_regenerated:
              'ein neuer Satz Wiederherstellungscodes (die alten gelten nicht mehr) für Ihr Konto',
            recovery_code_used: 'einer Ihrer Wiederherstellungscodes zur Anmeldung bei Ihrem Konto',
            passkey_added: 'ein Passkey zu Ihrem Konto',
            passkey_removed: 'ein Passkey aus Ihrem Konto',
          }[p.change]
        } bei ${p.realmName} ${
          {
            enabled: 'eingeschaltet',
            disabled: 'ausgeschaltet',
            recovery_codes_regenerated: 'erstellt',
            recovery_code_used: 'verwendet',
            passkey_added: 'hinzugefügt',
            passkey_removed: 'entfernt',
          }[p.change]
        }.`,
      },
      {
        p: 'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, setzen Sie jetzt Ihr Passwort zurück und prüfen Sie Ihre Einstellungen:',
      },
      { link: p.settingsLink, label: 'Anmeldung in zwei Schritten' },
    ],
  }),
  confirm_email_change: (p) => ({
    subject: `Neue E-Mail-Adresse für ${p.realmName} bestätigen`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Jemand (hoffentlich Sie) möchte Ihr Konto bei ${p.realmName} auf diese E-Mail-Adresse umstellen. Bestätigen Sie es über diesen Link; er funktioniert einmal, ${p.validHours} Stunden lang:`,
      },
      { link: p.link, label: 'Neue E-Mail-Adresse bestätigen' },
      { p: 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Es ändert sich nichts.' },
    ],
  }),
  email_change_requested: (p, l) => ({
    subject: `Für Ihr Konto bei ${p.realmName} wurde eine neue E-Mail-Adresse angefordert`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} hat jemand, der bei Ihrem Konto bei ${p.realmName} angemeldet war, von der Adresse ${p.ip ?? unknown.de} aus angefordert, das Konto auf eine andere E-Mail-Adresse umzustellen. Es ändert sich nichts, bis jene Adresse es bestätigt.`,
      },
      {
        p: 'Wenn Sie das nicht waren, setzen Sie jetzt Ihr Passwort zurück: Das stoppt die Änderung (ihr Link funktioniert dann nicht mehr) und meldet alle von Ihrem Konto ab.',
      },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
      { p: 'Wenn Sie angemeldet sind, können Sie auch nur die Änderung stoppen:' },
      { link: p.cancelLink, label: 'Änderung stoppen' },
    ],
  }),
  email_change_attempt: (p, l) => ({
    subject: `Jemand wollte diese E-Mail-Adresse bei ${p.realmName} verwenden`,
    blocks: [
      { p: 'Hallo,' },
      {
        p: `Am ${when(p.at, l)} wollte jemand ein anderes Konto bei ${p.realmName} auf diese E-Mail-Adresse umstellen, die dort bereits zu einem Konto gehört. Es wurde nichts geändert, und Sie müssen nichts tun.`,
      },
    ],
  }),
  email_changed: (p, l) => ({
    subject: `Ihr Konto bei ${p.realmName} hat eine neue E-Mail-Adresse`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} wurde Ihr Konto bei ${p.realmName} von der Adresse ${p.ip ?? unknown.de} aus auf die E-Mail-Adresse ${p.newEmail} umgestellt. Mit dieser Adresse melden Sie sich dort nicht mehr an.`,
      },
      {
        p: 'Wenn Sie das nicht waren, wenden Sie sich sofort an den Dienst; Sie können auch versuchen, das Passwort zurückzusetzen:',
      },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
  data_exported: (p, l) => ({
    subject: `Eine Kopie Ihrer Daten bei ${p.realmName} wurde heruntergeladen`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} wurde von der Adresse ${p.ip ?? unknown.de} aus eine Kopie aller Daten heruntergeladen, die ${p.realmName} über Ihr Konto speichert.`,
      },
      { p: 'Wenn Sie das nicht waren, setzen Sie jetzt Ihr Passwort zurück:' },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
  app_signed_in: (p, l) => ({
    subject: `Sie haben sich mit Ihrem Konto bei ${p.realmName} bei ${p.appName} angemeldet`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} wurde Ihr Konto bei ${p.realmName} von der Adresse ${p.ip ?? unknown.de} aus zum ersten Mal verwendet, um sich bei der App ${p.appName} anzumelden. Die App darf nun sehen, was Sie ihr erlaubt haben.`,
      },
      { p: 'Wenn Sie das waren, ist nichts zu tun. Sie können der App den Zugriff jederzeit entziehen:' },
      { link: p.appsLink, label: 'Apps mit Zugriff' },
      {
        p: 'Wenn Sie es nicht waren, setzen Sie jetzt Ihr Passwort zurück und entziehen Sie der App dann den Zugriff:',
      },
      { link: p.recoverLink, label: 'Mein Passwort zurücksetzen' },
    ],
  }),
  connection_changed: (p, l) => ({
    subject:
      p.change === 'removed'
        ? `Die Anmeldung mit ${p.providerName} wurde von Ihrem Konto bei ${p.realmName} entfernt`
        : `Die Anmeldung mit ${p.providerName} wurde Ihrem Konto bei ${p.realmName} hinzugefügt`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p:
          p.change === 'removed'
            ? `Am ${when(p.at, l)} wurde von der Adresse ${p.ip ?? unknown.de} aus die Anmeldung mit ${p.providerName} von Ihrem Konto bei ${p.realmName} entfernt.`
            : `Am ${when(p.at, l)} wurde Ihr Konto bei ${p.realmName} von der Adresse ${p.ip ?? unknown.de} aus mit ${p.providerName} verbunden: Sie können sich jetzt mit diesem Konto anmelden.`,
      },
      ...(p.change === 'took_over'
        ? [
            {
              p: `${p.providerName} hat diese Adresse bestätigt, die dieses Konto nie bestätigt hatte: Das zuvor gesetzte Passwort und alle Sitzungen wurden entfernt, falls sich jemand anderes mit Ihrer Adresse registriert hatte.`,
            },
          ]
        : []),
      { p: 'Ihre verbundenen Konten:' },
      { link: p.settingsLink, label: 'Verbundene Konten' },
      { p: 'Wenn Sie das nicht waren, setzen Sie jetzt Ihr Passwort zurück:' },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
  account_disabled: (p, l) => ({
    subject: `Ihr Konto bei ${p.realmName} wurde gesperrt`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} haben die Administratoren von ${p.realmName} Ihr Konto dort gesperrt. Es kann sich nicht mehr anmelden, und alle Geräte, die bei ihm angemeldet waren, wurden abgemeldet.`,
      },
      { p: 'Wenn Sie das für einen Irrtum halten, wenden Sie sich an den Dienst.' },
    ],
  }),
  two_step_reset: (p, l) => ({
    subject: `Die Anmeldung in zwei Schritten für ${p.realmName} wurde von den Administratoren ausgeschaltet`,
    blocks: [
      { p: `Hallo ${p.name},` },
      {
        p: `Am ${when(p.at, l)} haben die Administratoren von ${p.realmName} die Anmeldung in zwei Schritten für Ihr Konto dort ausgeschaltet, wie es geschieht, wenn jemand seine Authenticator-App und seine Wiederherstellungscodes verloren hat: Die App, Ihre Passkeys und Ihre Wiederherstellungscodes wurden entfernt, und alle Geräte wurden abgemeldet.`,
      },
      {
        p: 'Wenn Sie darum gebeten haben, melden Sie sich mit Ihrem Passwort an und richten Sie die Anmeldung in zwei Schritten erneut ein:',
      },
      { link: p.settingsLink, label: 'Anmeldung in zwei Schritten' },
      { p: 'Wenn nicht, setzen Sie jetzt Ihr Passwort zurück und wenden Sie sich an den Dienst:' },
      { link: p.recoverLink, label: 'Passwort zurücksetzen' },
    ],
  }),
};

const fr: Texts = {
  reset_password: (p) => ({
    subject: `Réinitialisez votre mot de passe pour ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Quelqu’un (vous, espérons-le) a demandé à réinitialiser le mot de passe de votre compte sur ${p.realmName}. Ce lien permet d’en choisir un nouveau ; il fonctionne une fois, pendant ${p.validMinutes} minutes\u00a0:`,
      },
      { link: p.link, label: 'Choisir un nouveau mot de passe' },
      { p: 'Si vous n’avez rien demandé, ignorez ce message\u00a0: votre mot de passe reste inchangé.' },
    ],
  }),
  verify_email: (p) => ({
    subject: `Confirmez votre adresse e-mail pour ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Merci de confirmer que cette adresse est bien la vôtre pour votre compte sur ${p.realmName}. Le lien fonctionne une fois, pendant ${p.validHours} heures\u00a0:`,
      },
      { link: p.link, label: 'Confirmer mon adresse e-mail' },
      { p: 'Si vous n’avez pas créé ce compte, ignorez ce message.' },
    ],
  }),
  password_changed: (p, l) => ({
    subject: `Votre mot de passe pour ${p.realmName} a été ${p.how === 'reset' ? 'réinitialisé' : 'modifié'}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le mot de passe de votre compte sur ${p.realmName} a été ${p.how === 'reset' ? 'réinitialisé avec un lien envoyé à cette adresse' : 'modifié'} le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}.`,
      },
      {
        p: 'Si c’était vous, il n’y a rien à faire. Sinon, réinitialisez votre mot de passe maintenant avec ce lien, qui déconnecte tous les autres\u00a0:',
      },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
  new_sign_in: (p, l) => ({
    subject: `Nouvelle connexion à votre compte sur ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Votre compte sur ${p.realmName} a été connecté le ${when(p.at, l)} depuis un appareil inconnu jusqu’ici (adresse ${p.ip ?? unknown.fr}${p.device ? `, ${p.device}` : ''}).`,
      },
      {
        p: 'Si c’était vous, il n’y a rien à faire. Sinon, réinitialisez votre mot de passe maintenant avec ce lien, qui déconnecte tous les autres\u00a0:',
      },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
  two_step_changed: (p, l) => ({
    subject: {
      enabled: `La connexion en deux étapes est activée pour ${p.realmName}`,
      disabled: `La connexion en deux étapes a été désactivée pour ${p.realmName}`,
      recovery_codes_regenerated: `Nouveaux codes de récupération pour ${p.realmName}`,
      recovery_code_used: `Un code de récupération a servi à se connecter à ${p.realmName}`,
      passkey_added: `Une clé d’accès a été ajoutée à votre compte sur ${p.realmName}`,
      passkey_removed: `Une clé d’accès a été retirée de votre compte sur ${p.realmName}`,
    }[p.change],
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `${
          {
            enabled:
              'La connexion en deux étapes avec une application d’authentification a été activée pour votre compte',
            disabled: 'La connexion en deux étapes a été désactivée pour votre compte',
            recovery_codes_regenerated:
              'De nouveaux codes de récupération ont été créés pour votre compte (les anciens ne fonctionnent plus)',
            recovery_code_used: 'Un de vos codes de récupération a servi à se connecter à votre compte',
            passkey_added: 'Une clé d’accès a été ajoutée à votre compte',
            passkey_removed: 'Une clé d’accès a été retirée de votre compte',
          }[p.change]
        } sur ${p.realmName} le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}.`,
      },
      {
        p: 'Si c’était vous, il n’y a rien à faire. Sinon, réinitialisez votre mot de passe maintenant et vérifiez vos réglages :',
      },
      { link: p.settingsLink, label: 'Connexion en deux étapes' },
    ],
  }),
  confirm_email_change: (p) => ({
    subject: `Confirmez votre nouvelle adresse e-mail pour ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Quelqu’un (vous, espérons-le) a demandé à déplacer votre compte sur ${p.realmName} vers cette adresse e-mail. Ce lien la confirme ; il fonctionne une fois, pendant ${p.validHours} heures\u00a0:`,
      },
      { link: p.link, label: 'Confirmer ma nouvelle adresse e-mail' },
      { p: 'Si vous n’avez rien demandé, ignorez ce message\u00a0: rien ne change.' },
    ],
  }),
  email_change_requested: (p, l) => ({
    subject: `Un changement d’adresse e-mail a été demandé pour votre compte sur ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}, une personne connectée à votre compte sur ${p.realmName} a demandé à le déplacer vers une autre adresse e-mail. Rien ne change tant que cette adresse ne l’a pas confirmé.`,
      },
      {
        p: 'Si ce n’était pas vous, réinitialisez votre mot de passe maintenant\u00a0: cela arrête le changement (son lien ne fonctionne plus) et déconnecte tout le monde de votre compte.',
      },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
      { p: 'Si vous êtes connecté, vous pouvez aussi arrêter seulement le changement\u00a0:' },
      { link: p.cancelLink, label: 'Arrêter le changement' },
    ],
  }),
  email_change_attempt: (p, l) => ({
    subject: `Quelqu’un a tenté d’utiliser cette adresse e-mail sur ${p.realmName}`,
    blocks: [
      { p: 'Bonjour,' },
      {
        p: `Le ${when(p.at, l)}, quelqu’un a demandé à déplacer un autre compte sur ${p.realmName} vers cette adresse e-mail, qui appartient déjà à un compte. Rien n’a été modifié, et vous n’avez rien à faire.`,
      },
    ],
  }),
  email_changed: (p, l) => ({
    subject: `Votre compte sur ${p.realmName} a une nouvelle adresse e-mail`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}, votre compte sur ${p.realmName} a été déplacé vers l’adresse e-mail ${p.newEmail}. Cette adresse-ci ne permet plus de s’y connecter.`,
      },
      {
        p: 'Si ce n’était pas vous, contactez le service tout de suite ; vous pouvez aussi essayer de réinitialiser le mot de passe\u00a0:',
      },
      { link: p.recoverLink, label: 'Réinitialiser le mot de passe' },
    ],
  }),
  data_exported: (p, l) => ({
    subject: `Une copie de vos données sur ${p.realmName} a été téléchargée`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}, une copie de tout ce que ${p.realmName} conserve sur votre compte a été téléchargée.`,
      },
      { p: 'Si ce n’était pas vous, réinitialisez votre mot de passe maintenant\u00a0:' },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
  app_signed_in: (p, l) => ({
    subject: `Vous vous êtes connecté à ${p.appName} avec votre compte sur ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, depuis l’adresse ${p.ip ?? unknown.fr}, votre compte sur ${p.realmName} a servi pour la première fois à vous connecter à l’application ${p.appName}. L’application peut désormais voir ce que vous lui avez permis.`,
      },
      {
        p: 'Si c’était vous, il n’y a rien à faire. Vous pouvez retirer l’accès de l’application à tout moment\u00a0:',
      },
      { link: p.appsLink, label: 'Applications ayant accès' },
      {
        p: 'Si ce n’était pas vous, réinitialisez votre mot de passe maintenant, puis retirez l’accès de l’application\u00a0:',
      },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
  connection_changed: (p, l) => ({
    subject:
      p.change === 'removed'
        ? `La connexion avec ${p.providerName} a été retirée de votre compte ${p.realmName}`
        : `La connexion avec ${p.providerName} a été ajoutée à votre compte ${p.realmName}`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p:
          p.change === 'removed'
            ? `Le ${when(p.at, l)}, depuis l'adresse ${p.ip ?? unknown.fr}, la connexion avec ${p.providerName} a été retirée de votre compte ${p.realmName}.`
            : `Le ${when(p.at, l)}, depuis l'adresse ${p.ip ?? unknown.fr}, votre compte ${p.realmName} a été relié à ${p.providerName} : vous pouvez désormais vous y connecter avec ce compte.`,
      },
      ...(p.change === 'took_over'
        ? [
            {
              p: `${p.providerName} a confirmé cette adresse, que ce compte n'avait jamais confirmée : le mot de passe défini auparavant et toutes les sessions ont été supprimés, au cas où quelqu'un d'autre se serait inscrit avec votre adresse.`,
            },
          ]
        : []),
      { p: 'Vos comptes connectés :' },
      { link: p.settingsLink, label: 'Comptes connectés' },
      { p: "Si ce n'était pas vous, réinitialisez votre mot de passe maintenant :" },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
  account_disabled: (p, l) => ({
    subject: `Votre compte sur ${p.realmName} a été désactivé`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, les administrateurs de ${p.realmName} ont désactivé votre compte. Il ne permet plus de se connecter, et tous les appareils qui y étaient connectés ont été déconnectés.`,
      },
      { p: 'Si vous pensez qu’il s’agit d’une erreur, contactez le service.' },
    ],
  }),
  two_step_reset: (p, l) => ({
    subject: `La connexion en deux étapes a été désactivée pour ${p.realmName} par ses administrateurs`,
    blocks: [
      { p: `Bonjour ${p.name},` },
      {
        p: `Le ${when(p.at, l)}, les administrateurs de ${p.realmName} ont désactivé la connexion en deux étapes de votre compte, comme on le fait pour une personne qui a perdu son application d’authentification et ses codes de récupération\u00a0: l’application, vos clés d’accès et vos codes de récupération ont été retirés, et tous les appareils ont été déconnectés.`,
      },
      {
        p: 'Si vous l’avez demandé, connectez-vous avec votre mot de passe et configurez de nouveau la connexion en deux étapes\u00a0:',
      },
      { link: p.settingsLink, label: 'Connexion en deux étapes' },
      { p: 'Sinon, réinitialisez votre mot de passe maintenant et contactez le service\u00a0:' },
      { link: p.recoverLink, label: 'Réinitialiser mon mot de passe' },
    ],
  }),
};

const TEXTS: Record<Locale, Texts> = { en, de, fr };

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The subject, text and HTML of a queued mail in its language. */
export function renderMail<T extends MailTemplate>(template: T, locale: Locale, payload: MailPayload[T]): RenderedMail {
  const texts = (TEXTS[locale] ?? en)[template] as (p: MailPayload[T], l: Locale) => Parts;
  const { subject, blocks } = texts(payload, locale);
  const text =
    blocks.map((b) => ('p' in b ? b.p : `${b.label}: ${b.link}`)).join('\n\n') + `\n\n-- \n${payload.realmName}\n`;
  const body = blocks
    .map((b) =>
      'p' in b ? `<p>${escapeHtml(b.p)}</p>` : `<p><a href="${escapeHtml(b.link)}">${escapeHtml(b.label)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html>\n<html lang="${locale}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body>\n${body}\n<p>— ${escapeHtml(payload.realmName)}</p>\n</body></html>\n`;
  const link = blocks.find((b): b is { link: string; label: string } => 'link' in b)?.link;
  return { subject, text, html, link };
}
