import type { AccountConfig } from './config.js';
import { createAccountRouter } from './routers/account.js';
import { createEmailRouter } from './routers/email.js';
import { createEmailChangeRouter } from './routers/email-change.js';
import { createAccountDataRouter } from './routers/account-data.js';
import { createSecurityRouter } from './routers/security.js';
import { createPasskeysRouter } from './routers/passkeys.js';
import { createTwoStepRouter } from './routers/two-step.js';
import { createCallerFactory, proceduresFor, router } from './trpc.js';

/** The one router, built from the deployment's account configuration. */
export function createAppRouter(config: AccountConfig) {
  const procedures = proceduresFor(config);
  return router({
    account: createAccountRouter(procedures, config),
    email: createEmailRouter(procedures, config),
    emailChange: createEmailChangeRouter(procedures),
    accountData: createAccountDataRouter(procedures),
    security: createSecurityRouter(procedures),
    twoStep: createTwoStepRouter(procedures),
    passkeys: createPasskeysRouter(procedures),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

/** Server-side calls of the same procedures (the form routes, tests). */
export const callerFor = (appRouter: AppRouter) => createCallerFactory(appRouter);
