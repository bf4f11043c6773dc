import {
  createVault,
  createRealm,
  listRealms,
  pepperId,
  RealmError,
  renameRealm,
  setRequireVerifiedEmail,
} from '@accounts/api';
import { DATA_DIR_WAS_OPEN, DataDirBusyError, openDatabase } from '@accounts/db';
import {
  AccountCommandError,
  accountCommandValid,
  ACCOUNT_USAGE,
  operatorMailFrom,
  runAccountCommand,
} from './account-cli.js';
import { CLIENT_USAGE, ClientError, parseClientCommand, runClientCommand } from './client-cli.js';
import { parseProviderCommand, PROVIDER_USAGE, ProviderError, runProviderCommand } from './provider-cli.js';
import { realmOrigin } from './mail/origin.js';
import { ConfigError, loadConfig, serviceNameOf } from './config.js';
import { databaseOptionsFrom, migrationUrlOf } from './config-options.js';
import { pepperFor, secretKeyFor } from './secret-key.js';

const USAGE = `Usage:
  npm run db:migrate                       apply the database migrations
  npm run realm -- create <slug> "<name>"  create a realm, reached at <slug>.<ROOT_DOMAIN>
  npm run realm -- rename <slug> "<name>"  the name people see on its pages and in its mail
                                           (the default realm goes by SERVICE_NAME until named)
  npm run realm -- list                    list the realms
  npm run realm -- set <slug> require-verified-email on|off
                                           whether only accounts with a confirmed address may sign in
${PROVIDER_USAGE}
${ACCOUNT_USAGE}
${CLIENT_USAGE}

Uses the same DATABASE_URL / DATA_DIR as the server. On the embedded database (DATA_DIR), stop the
server first; on PostgreSQL (DATABASE_URL) the commands work while servers run.`;

async function main(args: string[]): Promise<number> {
  const [command, sub, ...rest] = args;
  const clientCommand = command === 'client' ? parseClientCommand(sub, rest) : null;
  const providerCommand =
    command === 'realm' && sub === 'provider' ? parseProviderCommand(rest[0], rest.slice(1)) : null;
  if (
    command !== 'migrate' &&
    command !== 'realm' &&
    !(command === 'account' && accountCommandValid(sub, rest)) &&
    !clientCommand
  ) {
    console.error(USAGE);
    return 2;
  }
  const setting =
    sub === 'set' &&
    rest.length === 3 &&
    rest[1] === 'require-verified-email' &&
    (rest[2] === 'on' || rest[2] === 'off');
  if (
    command === 'realm' &&
    !(((sub === 'create' || sub === 'rename') && rest.length === 2) || sub === 'list' || setting || providerCommand)
  ) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  // A command does not wait for a data directory the server holds (unless DATA_DIR_LOCK_WAIT_MS says so).
  const options = { ...databaseOptionsFrom(config, 0), poolSize: 1, hearChanges: false };
  // Migrations run with DATABASE_MIGRATION_URL's role when it is set (docs/operations.md, "Roles").
  if (config.DATABASE_URL && config.DATABASE_MIGRATION_URL) {
    const migrating = await openDatabase({ ...options, url: migrationUrlOf(config) });
    try {
      await migrating.migrate();
    } finally {
      await migrating.close();
    }
  }
  const database = await openDatabase(options);
  if (database.dataDirWasOpen) console.warn(`${config.DATA_DIR}: ${DATA_DIR_WAS_OPEN}`);
  try {
    if (!(config.DATABASE_URL && config.DATABASE_MIGRATION_URL)) await database.migrate();
    if (providerCommand) {
      // Client secrets are sealed under SECRET_KEY, read once the data directory is held.
      await runProviderCommand(database.db, providerCommand, {
        vault: () => createVault(secretKeyFor(config).key, config.SECRET_KEY_PREVIOUS),
        allowPrivateOutbound: config.ALLOW_PRIVATE_OUTBOUND,
        originOf: (realm) => realmOrigin(realm, config),
      });
    } else if (clientCommand) {
      // The signing keys are sealed under SECRET_KEY, read once the data directory is held.
      const secrets = () => ({ vault: createVault(secretKeyFor(config).key, config.SECRET_KEY_PREVIOUS) });
      await runClientCommand(database.db, clientCommand, secrets);
    } else if (command === 'account') {
      // Read once the data directory is held, as the server reads them.
      const secrets = () => ({
        vault: createVault(secretKeyFor(config).key, config.SECRET_KEY_PREVIOUS),
        pepperId: pepperId(pepperFor(config).pepper),
      });
      await runAccountCommand(database.db, sub!, rest, { mail: operatorMailFrom(config), secrets });
    } else if (command === 'migrate') {
      console.log('migrations applied');
    } else if (sub === 'create') {
      const realm = await createRealm(database.db, rest[0]!, rest[1]!);
      console.log(
        `created realm "${realm.slug}" (${realm.name}): http://${realm.slug}.${config.ROOT_DOMAIN}${config.PORT === 80 ? '' : `:${config.PORT}`}/`,
      );
    } else if (sub === 'rename') {
      const realm = await renameRealm(database.db, rest[0]!, rest[1]!);
      console.log(`realm "${realm.slug}" is now shown as "${realm.name}"`);
    } else if (setting) {
      await setRequireVerifiedEmail(database.db, rest[0]!, rest[2] === 'on');
      console.log(`realm "${rest[0]}": require-verified-email ${rest[2]}`);
    } else {
      const unnamed = `(unnamed: shown as "${serviceNameOf(config)}", SERVICE_NAME)`;
      for (const r of await listRealms(database.db)) console.log(`${r.slug}\t${r.name ?? unnamed}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  if (
    err instanceof ConfigError ||
    err instanceof DataDirBusyError ||
    err instanceof RealmError ||
    err instanceof AccountCommandError ||
    err instanceof ClientError ||
    err instanceof ProviderError
  ) {
    console.error(err.message);
  } else {
    console.error('failed:', err instanceof Error ? err.message : err);
  }
  process.exitCode = 1;
}
