import {
  AccountCommandError,
  disableAccount,
  enableAccount,
  listAccounts,
  resealTotpSecrets,
  resetSecondStep,
  revokeAccountSessions,
  revokeRealmSessions,
  secretCensus,
  type OperatorMail,
  type Vault,
} from '@accounts/api';
import type { Database } from '@accounts/db';
import { mailCapFrom, serviceNameOf, type Config } from './config.js';
import { realmOrigin } from './mail/origin.js';

export { AccountCommandError };

export const ACCOUNT_USAGE = `  npm run account -- list <realm>                     list the realm's accounts (email, name, created, state, sessions)
  npm run account -- disable <realm> <email>          no more sign-ins (answered as a wrong password); its sessions end
                                                      now; the owner is told by mail
  npm run account -- enable <realm> <email>           allow sign-in again
  npm run account -- revoke-sessions <realm> <email>  end every session of the account
  npm run account -- reset-second-factor <realm> <email>
                                                      turn off two-step sign-in (lost phone and recovery codes;
                                                      check who asks out of band); every session ends; the
                                                      owner is told by mail
  npm run account -- revoke-realm-sessions <realm>    end every session of every account of the realm
  npm run account -- rotate-secrets                   after a SECRET_KEY rotation: seal every authenticator-app
                                                      secret under the current key; count what still needs
                                                      SECRET_KEY_PREVIOUS or PASSWORD_PEPPER_PREVIOUS`;

/** What the secret commands need: the vault of SECRET_KEY (and its previous keys), the current pepper's id. */
export interface SecretsForCommands {
  vault: Vault;
  pepperId: string;
}

/**
 * How the commands that tell the owner mail: the server's mail cap and the realm's origin, both
 * from the same configuration the server reads (there is no request to take them from).
 */
export const operatorMailFrom = (config: Config): OperatorMail => ({
  cap: mailCapFrom(config),
  originOf: (realm) => realmOrigin(realm.slug, config),
  serviceName: serviceNameOf(config),
});

/** What the command line says of the owner's notice. */
const toldOwner = (told: boolean) =>
  told ? 'the owner was told by mail' : 'the owner was not mailed (no confirmed address, or its mail cap was reached)';

/** Whether an account command needs the secrets (SECRET_KEY, PASSWORD_PEPPER). */
export const needsSecrets = (sub: string | undefined) => sub === 'rotate-secrets';

/** Whether `account <sub> ...rest` is a command this tool knows. */
export function accountCommandValid(sub: string | undefined, rest: string[]): boolean {
  if (sub === 'list' || sub === 'revoke-realm-sessions') return rest.length === 1;
  if (sub === 'rotate-secrets') return rest.length === 0;
  return (
    (sub === 'disable' || sub === 'enable' || sub === 'revoke-sessions' || sub === 'reset-second-factor') &&
    rest.length === 2
  );
}

/** Runs an operator's account command; what it did goes to stdout. */
export async function runAccountCommand(
  db: Database,
  sub: string,
  [realm, email]: string[],
  { mail, secrets }: { mail: OperatorMail; secrets?: () => SecretsForCommands },
): Promise<void> {
  if (sub === 'rotate-secrets') {
    const { vault, pepperId } = secrets!();
    const { resealed, unreadable } = await resealTotpSecrets(db, vault);
    const census = await secretCensus(db, vault, pepperId);
    console.log(`authenticator-app secrets sealed again under the current SECRET_KEY: ${resealed}`);
    if (unreadable > 0)
      console.log(
        `authenticator-app secrets no kept key opens (restore SECRET_KEY_PREVIOUS, or reset-second-factor their accounts): ${unreadable}`,
      );
    console.log(
      `unused recovery codes under an earlier SECRET_KEY (keep SECRET_KEY_PREVIOUS until they are used or replaced): ${census.recoveryCodesUnderOtherKeys}`,
    );
    console.log(
      `password hashes under another pepper (keep PASSWORD_PEPPER_PREVIOUS until their next sign-in re-hashes them): ${census.hashesUnderOtherPeppers}`,
    );
  } else if (sub === 'revoke-realm-sessions') {
    const revoked = await revokeRealmSessions(db, realm!);
    console.log(`realm "${realm}": ${revoked} session${revoked === 1 ? '' : 's'} ended`);
  } else if (sub === 'list') {
    const accounts = await listAccounts(db, realm!);
    if (accounts.length === 0) console.error(`There are no accounts in realm "${realm}".`);
    for (const a of accounts) {
      const state = a.disabledAt ? `disabled ${a.disabledAt.toISOString()}` : 'active';
      console.log(
        `${a.email}\t${a.name}\t${a.createdAt.toISOString()}\t${state}\t${a.sessions} session${a.sessions === 1 ? '' : 's'}`,
      );
    }
  } else if (sub === 'disable') {
    const { changed, revoked, told } = await disableAccount(db, realm!, email!, mail);
    console.log(
      `${email} in realm "${realm}": ${changed ? 'disabled' : 'was already disabled'}; ${revoked} session${revoked === 1 ? '' : 's'} ended${changed ? `; ${toldOwner(told)}` : ''}`,
    );
  } else if (sub === 'enable') {
    const { changed } = await enableAccount(db, realm!, email!);
    console.log(`${email} in realm "${realm}": ${changed ? 'enabled' : 'was not disabled'}`);
  } else if (sub === 'reset-second-factor') {
    const { wasOn, revoked, told } = await resetSecondStep(db, realm!, email!, mail);
    console.log(
      `${email} in realm "${realm}": two-step sign-in ${wasOn ? 'turned off' : 'was not on'}; ${revoked} session${revoked === 1 ? '' : 's'} ended${wasOn ? `; ${toldOwner(told)}` : ''}`,
    );
  } else {
    const revoked = await revokeAccountSessions(db, realm!, email!);
    console.log(`${email} in realm "${realm}": ${revoked} session${revoked === 1 ? '' : 's'} ended`);
  }
}
