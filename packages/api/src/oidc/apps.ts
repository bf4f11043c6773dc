import { and, asc, eq, gt, inArray, isNull, max, or, sql } from 'drizzle-orm';
import { oidcArtifacts, oidcClients, type Database } from '@accounts/db';
import { APP_SCOPES, type AppScope } from './apps-outputs.js';

// The apps an account gave access to (its live grants, by app), and taking that access away.
// A grant is the provider's Grant row (artifacts.ts) of the account's subject; its codes and
// tokens name the same account and app (and the grant).

const live = () => or(isNull(oidcArtifacts.expiresAt), gt(oidcArtifacts.expiresAt, sql`now()`));
const ofAccount = (realmId: string, subject: string) =>
  and(eq(oidcArtifacts.realmId, realmId), eq(oidcArtifacts.accountId, subject));

/** The scopes of a grant's payload (`openid.scope`, space-separated) that an app may be granted. */
export function grantedScopes(payload: Record<string, unknown>): AppScope[] {
  const openid = payload.openid as { scope?: unknown } | undefined;
  const words = typeof openid?.scope === 'string' ? openid.scope.split(' ') : [];
  return APP_SCOPES.filter((s) => words.includes(s));
}

export interface AppWithAccess {
  clientId: string;
  name: string;
  firstParty: boolean;
  scopes: AppScope[];
  grantedAt: Date;
  lastUsedAt: Date;
}

/** The apps with a live grant of the account, the most recently used first. */
export async function appsWithAccess(db: Database, realmId: string, subject: string): Promise<AppWithAccess[]> {
  const grants = await db
    .select({
      clientId: oidcArtifacts.clientId,
      payload: oidcArtifacts.payload,
      createdAt: oidcArtifacts.createdAt,
      name: oidcClients.name,
      firstParty: oidcClients.firstParty,
    })
    .from(oidcArtifacts)
    .innerJoin(
      oidcClients,
      and(eq(oidcClients.realmId, oidcArtifacts.realmId), eq(oidcClients.clientId, oidcArtifacts.clientId)),
    )
    .where(and(ofAccount(realmId, subject), eq(oidcArtifacts.kind, 'Grant'), live()))
    .orderBy(asc(oidcArtifacts.createdAt));
  if (grants.length === 0) return [];
  const byApp = new Map<string, AppWithAccess>();
  for (const g of grants) {
    const clientId = g.clientId!;
    const app = byApp.get(clientId);
    const scopes = grantedScopes(g.payload);
    if (!app) {
      byApp.set(clientId, {
        clientId,
        name: g.name,
        firstParty: g.firstParty,
        scopes,
        grantedAt: g.createdAt,
        lastUsedAt: g.createdAt,
      });
      continue;
    }
    app.scopes = APP_SCOPES.filter((s) => app.scopes.includes(s) || scopes.includes(s));
    if (g.createdAt > app.lastUsedAt) app.lastUsedAt = g.createdAt;
  }
  // The newest token each app was given (spent and expired ones too, until they are purged).
  const used = await db
    .select({ clientId: oidcArtifacts.clientId, at: max(oidcArtifacts.createdAt) })
    .from(oidcArtifacts)
    .where(
      and(
        ofAccount(realmId, subject),
        inArray(oidcArtifacts.kind, ['AccessToken', 'RefreshToken']),
        inArray(oidcArtifacts.clientId, [...byApp.keys()]),
      ),
    )
    .groupBy(oidcArtifacts.clientId);
  for (const u of used) {
    const app = u.clientId ? byApp.get(u.clientId) : undefined;
    const at = u.at && new Date(u.at);
    if (app && at && at > app.lastUsedAt) app.lastUsedAt = at;
  }
  return [...byApp.values()].sort(
    (a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime() || a.name.localeCompare(b.name),
  );
}

/**
 * Removes the account's access of the app: every row of the account and the app (its grants, the
 * codes and tokens of them, whatever their kind), so each of its tokens is inactive at once.
 * Returns the app's name, or null when the account has no live grant of it (nothing is removed).
 */
export async function removeAppAccess(
  tx: Database,
  realmId: string,
  subject: string,
  clientId: string,
): Promise<{ clientId: string; name: string } | null> {
  const grants = await tx
    .select({ id: oidcArtifacts.id, name: oidcClients.name })
    .from(oidcArtifacts)
    .innerJoin(
      oidcClients,
      and(eq(oidcClients.realmId, oidcArtifacts.realmId), eq(oidcClients.clientId, oidcArtifacts.clientId)),
    )
    .where(
      and(ofAccount(realmId, subject), eq(oidcArtifacts.kind, 'Grant'), eq(oidcArtifacts.clientId, clientId), live()),
    );
  if (grants.length === 0) return null;
  await tx.delete(oidcArtifacts).where(
    and(
      eq(oidcArtifacts.realmId, realmId),
      eq(oidcArtifacts.clientId, clientId),
      // A token row names its account; one that did not would still name its grant.
      or(
        eq(oidcArtifacts.accountId, subject),
        inArray(
          oidcArtifacts.grantId,
          grants.map((g) => g.id),
        ),
      ),
    ),
  );
  return { clientId, name: grants[0]!.name };
}
