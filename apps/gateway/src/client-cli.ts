import {
  ClientError,
  createClient,
  deleteClient,
  listClients,
  OIDC_LIFETIMES,
  rotateClientSecret,
  rotateSigningKeys,
  type ClientListing,
  type Vault,
} from '@accounts/api';
import type { Database } from '@accounts/db';
import { parseSubcommand, type Shapes } from './subcommand.js';

export { ClientError };

export const CLIENT_USAGE = `  npm run client -- create <realm> --name <name> --redirect-uri <uri> [--redirect-uri <uri>]…
                       [--post-logout-redirect-uri <uri>]… [--backchannel-logout-uri <uri>]
                       [--public] [--first-party] [--json]
                                                      register an app that signs people in with the realm's
                                                      accounts (OpenID Connect); prints its client_id and, unless
                                                      --public, its client_secret, once. Addresses: https, or
                                                      http on localhost, 127.0.0.1 or [::1]; --first-party: no
                                                      consent asked
  npm run client -- list <realm> [--json]             the realm's apps
  npm run client -- delete <realm> <client_id>        remove an app, with every grant and token it holds
  npm run client -- rotate-secret <realm> <client_id> [--json]
                                                      a new secret; the old one stops working at once
  npm run client -- rotate-keys <realm>               a new key signs the realm's ID tokens from now on; the
                                                      old one stays published until the tokens it signed expire`;

const OPTIONS = {
  name: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'backchannel-logout-uri': { type: 'string' },
  public: { type: 'boolean' },
  'first-party': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** How many positional arguments (after the subcommand) and which options each subcommand takes. */
const SHAPES: Shapes<typeof OPTIONS> = {
  create: {
    positionals: 1,
    options: [
      'name',
      'redirect-uri',
      'post-logout-redirect-uri',
      'backchannel-logout-uri',
      'public',
      'first-party',
      'json',
    ],
  },
  list: { positionals: 1, options: ['json'] },
  delete: { positionals: 2, options: [] },
  'rotate-secret': { positionals: 2, options: ['json'] },
  'rotate-keys': { positionals: 1, options: [] },
};

export type ClientCommand = {
  sub: string;
  positionals: string[];
  values: NonNullable<ReturnType<typeof parseSubcommand<typeof OPTIONS>>>['values'];
};

/** The command `client <sub> ...rest` asks for, or null when it is not one this tool knows (usage). */
export const parseClientCommand = (sub: string | undefined, rest: string[]): ClientCommand | null =>
  parseSubcommand(OPTIONS, SHAPES, sub, rest);

/** Whether the command needs SECRET_KEY (the signing keys are sealed with it). */
export const clientNeedsSecrets = (sub: string | undefined) => sub === 'rotate-keys';

const asJson = (c: ClientListing) => ({
  client_id: c.clientId,
  name: c.name,
  public: c.public,
  first_party: c.firstParty,
  redirect_uris: c.redirectUris,
  post_logout_redirect_uris: c.postLogoutRedirectUris,
  backchannel_logout_uri: c.backchannelLogoutUri,
  created_at: c.createdAt.toISOString(),
});

const SECRET_ONCE = 'shown once: only its digest is kept (a lost one is replaced with rotate-secret)';

/** Runs an operator's client command; what it did goes to stdout (JSON with --json). */
export async function runClientCommand(
  db: Database,
  { sub, positionals, values }: ClientCommand,
  secrets: () => { vault: Vault },
): Promise<void> {
  const [realm, clientId] = positionals as [string, string | undefined];
  if (sub === 'create') {
    if (!values.name) throw new ClientError('An app needs a name (--name).');
    const { client, clientSecret } = await createClient(db, realm, {
      name: values.name,
      redirectUris: values['redirect-uri'] ?? [],
      postLogoutRedirectUris: values['post-logout-redirect-uri'] ?? [],
      backchannelLogoutUri: values['backchannel-logout-uri'] ?? null,
      public: values.public ?? false,
      firstParty: values['first-party'] ?? false,
    });
    if (values.json) return void console.log(JSON.stringify({ ...asJson(client), client_secret: clientSecret }));
    console.log(`registered app "${client.name}" in realm "${realm}"${client.public ? ' (public: PKCE alone)' : ''}`);
    console.log(`client_id      ${client.clientId}`);
    if (clientSecret) console.log(`client_secret  ${clientSecret}\n(${SECRET_ONCE})`);
  } else if (sub === 'list') {
    const clients = await listClients(db, realm);
    if (values.json) return void console.log(JSON.stringify(clients.map(asJson)));
    if (clients.length === 0) console.error(`There are no apps in realm "${realm}".`);
    for (const c of clients)
      console.log(
        [
          c.clientId,
          c.name,
          c.public ? 'public' : 'confidential',
          c.firstParty ? 'first-party' : 'third-party',
          c.redirectUris.join(' '),
          c.createdAt.toISOString(),
        ].join('\t'),
      );
  } else if (sub === 'delete') {
    const client = await deleteClient(db, realm, clientId!);
    console.log(`app "${client.name}" (${client.clientId}) removed from realm "${realm}", with its grants and tokens`);
  } else if (sub === 'rotate-secret') {
    const { client, clientSecret } = await rotateClientSecret(db, realm, clientId!);
    if (values.json)
      return void console.log(JSON.stringify({ client_id: client.clientId, client_secret: clientSecret }));
    console.log(`app "${client.name}": a new secret; the old one no longer works`);
    console.log(`client_id      ${client.clientId}\nclient_secret  ${clientSecret}\n(${SECRET_ONCE})`);
  } else {
    const { kid, retired } = await rotateSigningKeys(db, secrets().vault, realm);
    console.log(`realm "${realm}": ID tokens are signed with the new key ${kid} from now on`);
    const minutes = Math.ceil(OIDC_LIFETIMES.idToken / 60);
    for (const old of retired)
      console.log(`retired ${old}: still published for ${minutes} minutes, until the ID tokens it signed expire`);
  }
}
