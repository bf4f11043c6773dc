// The words of the connected accounts page, loaded with it.
import { createTranslator, useTranslator, type StringTables } from '../../i18n';

const en = {
  connectionsIntro:
    'You can sign in to this account with these accounts at other providers. Removing one means it no longer signs you in here.',
  connectionsNone: 'No account at another provider is connected.',
  connectionsEmail: 'Address it gave: {email}',
  connectionsConnected: 'Connected {time}',
  connectionsLastUsed: 'Last used {time}',
  connectionsRemove: 'Remove',
  connectionsRemoveLabel: 'Remove {provider}',
  connectionsRemoving: 'Removing…',
  connectionsRemoved: '{provider} no longer signs you in to this account.',
  connectionsAddTitle: 'Connect another account',
  connectionsAddIntro: 'You will be asked to sign in at the provider, then brought back here.',
  connectionsConnect: 'Connect {provider}',
  connectionsDone: 'The account is connected: you can now sign in with it.',
  upstreamTookOver:
    'Your account’s earlier password and sessions were ended: the address was confirmed by the provider you signed in with.',
} as const;

export type ConnectionsKey = keyof typeof en;

const de: Record<ConnectionsKey, string> = {
  connectionsIntro:
    'Mit diesen Konten bei anderen Anbietern können Sie sich bei diesem Konto anmelden. Wenn Sie eines entfernen, meldet es Sie hier nicht mehr an.',
  connectionsNone: 'Kein Konto bei einem anderen Anbieter ist verbunden.',
  connectionsEmail: 'Übermittelte Adresse: {email}',
  connectionsConnected: 'Verbunden {time}',
  connectionsLastUsed: 'Zuletzt verwendet {time}',
  connectionsRemove: 'Entfernen',
  connectionsRemoveLabel: '{provider} entfernen',
  connectionsRemoving: 'Wird entfernt …',
  connectionsRemoved: '{provider} meldet Sie nicht mehr bei diesem Konto an.',
  connectionsAddTitle: 'Weiteres Konto verbinden',
  connectionsAddIntro: 'Sie melden sich beim Anbieter an und kommen dann hierher zurück.',
  connectionsConnect: '{provider} verbinden',
  connectionsDone: 'Das Konto ist verbunden: Sie können sich jetzt damit anmelden.',
  upstreamTookOver:
    'Das frühere Passwort und die Sitzungen Ihres Kontos wurden beendet: Der Anbieter, mit dem Sie sich angemeldet haben, hat die Adresse bestätigt.',
};

const fr: Record<ConnectionsKey, string> = {
  connectionsIntro:
    'Vous pouvez vous connecter à ce compte avec ces comptes chez d’autres fournisseurs. En retirer un l’empêche de vous connecter ici.',
  connectionsNone: 'Aucun compte chez un autre fournisseur n’est associé.',
  connectionsEmail: 'Adresse donnée\u00a0: {email}',
  connectionsConnected: 'Associé {time}',
  connectionsLastUsed: 'Dernière utilisation {time}',
  connectionsRemove: 'Retirer',
  connectionsRemoveLabel: 'Retirer {provider}',
  connectionsRemoving: 'Retrait…',
  connectionsRemoved: '{provider} ne vous connecte plus à ce compte.',
  connectionsAddTitle: 'Associer un autre compte',
  connectionsAddIntro: 'Vous vous connecterez chez le fournisseur, puis reviendrez ici.',
  connectionsConnect: 'Associer {provider}',
  connectionsDone: 'Le compte est associé\u00a0: vous pouvez maintenant vous connecter avec.',
  upstreamTookOver:
    'L’ancien mot de passe et les sessions de votre compte ont été arrêtés\u00a0: l’adresse a été confirmée par le fournisseur avec lequel vous vous êtes connecté.',
};

export const CONNECTIONS_STRINGS: StringTables<ConnectionsKey> = { en, de, fr };
const translateConnections = createTranslator(CONNECTIONS_STRINGS);

/** The connected accounts page's words in the page's language: `(key, params)`. */
export const useConnectionsText = () => useTranslator(translateConnections);
