import { readFileSync } from 'node:fs';
import {
  addProvider,
  listProviders,
  PROVIDER_KINDS,
  ProviderError,
  removeProvider,
  type ProviderListing,
  type Vault,
} from '@accounts/api';
import type { Database } from '@accounts/db';
import { parseSubcommand, type Shapes } from './subcommand.js';

export { ProviderError };

export const PROVIDER_USAGE = `  npm run realm -- provider add <realm> <id> --issuer <url> --client-id <id> --client-secret <secret>
                       [--client-secret-file <path>] [--name <label>] [--scope <scopes>]
                       [--kind ${PROVIDER_KINDS.join('|')}] [--team-id <id> --key-id <id>] [--accept-upstream-mfa]
                                                      let people of the realm sign in with an identity provider
                                                      ("Continue with <name>"); register the callback
                                                      <realm origin>/users/oauth/<id>/callback there. --issuer is
                                                      https (the kinds other than oidc know theirs); Apple:
                                                      the key (PEM) as the secret, with its team and key ids
  npm run realm -- provider list <realm> [--json]     the realm's identity providers (never their secrets)
  npm run realm -- provider remove <realm> <id>       remove one, with every account connection to it`;

const OPTIONS = {
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-secret-file': { type: 'string' },
  name: { type: 'string' },
  scope: { type: 'string' },
  kind: { type: 'string' },
  'team-id': { type: 'string' },
  'key-id': { type: 'string' },
  'accept-upstream-mfa': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const SHAPES: Shapes<typeof OPTIONS> = {
  add: {
    positionals: 2,
    options: [
      'issuer',
      'client-id',
      'client-secret',
      'client-secret-file',
      'name',
      'scope',
      'kind',
      'team-id',
      'key-id',
      'accept-upstream-mfa',
      'json',
    ],
  },
  list: { positionals: 1, options: ['json'] },
  remove: { positionals: 2, options: [] },
};

export type ProviderCommand = {
  sub: string;
  positionals: string[];
  values: NonNullable<ReturnType<typeof parseSubcommand<typeof OPTIONS>>>['values'];
};

/** The command `realm provider <sub> ...rest`, or null when it is not one this tool knows (usage). */
export const parseProviderCommand = (sub: string | undefined, rest: string[]): ProviderCommand | null =>
  parseSubcommand(OPTIONS, SHAPES, sub, rest);

const asJson = (p: ProviderListing) => ({
  id: p.id,
  kind: p.kind,
  name: p.name,
  issuer: p.issuer,
  client_id: p.clientId,
  scope: p.scope,
  accept_upstream_mfa: p.acceptUpstreamMfa,
  created_at: p.createdAt.toISOString(),
});

/** Runs an operator's provider command; what it did goes to stdout (JSON with --json). */
export async function runProviderCommand(
  db: Database,
  { sub, positionals, values }: ProviderCommand,
  deps: { vault: () => Vault; allowPrivateOutbound: boolean; originOf: (realm: string) => string },
): Promise<void> {
  const [realm, id] = positionals as [string, string | undefined];
  if (sub === 'add') {
    if (values['client-secret'] && values['client-secret-file'])
      throw new ProviderError('give --client-secret or --client-secret-file, not both');
    const secret = values['client-secret-file']
      ? readFileSync(values['client-secret-file'], 'utf8').trim()
      : (values['client-secret'] ?? '');
    const added = await addProvider(
      db,
      deps.vault(),
      realm,
      {
        id: id!,
        kind: values.kind,
        issuer: values.issuer,
        clientId: values['client-id'] ?? '',
        clientSecret: secret,
        name: values.name,
        scope: values.scope,
        teamId: values['team-id'],
        keyId: values['key-id'],
        acceptUpstreamMfa: values['accept-upstream-mfa'] ?? false,
      },
      deps.allowPrivateOutbound,
    );
    const callback = `${deps.originOf(realm)}/users/oauth/${added.id}/callback`;
    if (values.json) return void console.log(JSON.stringify({ ...asJson(added), callback_url: callback }));
    console.log(`added provider "${added.id}" (${added.name}, ${added.kind}) to realm "${realm}"`);
    console.log(`register this callback at the provider: ${callback}`);
  } else if (sub === 'list') {
    const providers = await listProviders(db, realm);
    if (values.json) return void console.log(JSON.stringify(providers.map(asJson)));
    if (providers.length === 0) console.error(`Realm "${realm}" has no identity providers.`);
    for (const p of providers)
      console.log([p.id, p.kind, p.name, p.issuer, p.clientId, p.createdAt.toISOString()].join('\t'));
  } else if (sub === 'remove') {
    await removeProvider(db, realm, id!);
    console.log(`provider "${id}" removed from realm "${realm}", with every account's connection to it`);
  }
}
