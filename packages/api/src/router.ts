import type { inferRouterInputs } from '@trpc/server';
import { accountProcedures } from './account/procedures.js';
import { exportProcedures } from './account/export-procedures.js';
import { emailChangeProcedures } from './email/change-procedures.js';
import { emailProcedures } from './email/procedures.js';
import type { AccountConfig } from './kernel/config.js';
import { appsProcedures } from './oidc/apps-procedures.js';
import { connectionProcedures } from './connections/procedures.js';
import { passkeyProcedures } from './passkeys/procedures.js';
import { passwordProcedures } from './passwords/procedures.js';
import { createCallerFactory, proceduresFor, router } from './procedures.js';
import { sessionProcedures } from './sessions/procedures.js';
import { signInProcedures } from './sign-in/procedures.js';
import { twoStepProcedures } from './two-step/procedures.js';

/**
 * The one router, built from the deployment's account configuration. Each capability gives its
 * procedures as records keyed by wire namespace; this file alone names the namespaces, so moving
 * a procedure between folders never moves a URL.
 */
export function createAppRouter(config: AccountConfig) {
  const p = proceduresFor(config);
  const signIn = signInProcedures(p, config);
  const sessions = sessionProcedures(p);
  const passwords = passwordProcedures(p, config);
  const account = accountProcedures(p);
  return router({
    account: router({ ...account.account, ...signIn.account, ...sessions.account, ...passwords.account }),
    email: router({ ...passwords.email, ...emailProcedures(p).email }),
    emailChange: router(emailChangeProcedures(p).emailChange),
    accountData: router(exportProcedures(p).accountData),
    security: router({ ...sessions.security, ...account.security }),
    twoStep: router(twoStepProcedures(p).twoStep),
    passkeys: router({ ...passkeyProcedures(p).passkeys, ...signIn.passkeys }),
    apps: router(appsProcedures(p).apps),
    upstream: router(signIn.upstream),
    connections: router(connectionProcedures(p).connections),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

type Namespaces = inferRouterInputs<AppRouter>;

/** Every procedure's dotted path ("account.register"), from the router's own type: a path it lacks does not compile. */
export type ProcedurePath = {
  [N in keyof Namespaces]: `${N & string}.${keyof Namespaces[N] & string}`;
}[keyof Namespaces];

/** Server-side calls of the same procedures (the form routes, tests). */
export const callerFor = (appRouter: AppRouter) => createCallerFactory(appRouter);
