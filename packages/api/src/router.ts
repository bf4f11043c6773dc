import type { AccountConfig } from './kernel/config.js';
import { createAccountRouter } from './sign-in/procedures.js';
import { createEmailRouter } from './email/procedures.js';
import { createEmailChangeRouter } from './email/change-procedures.js';
import { createAccountDataRouter } from './account/export-procedures.js';
import { createSecurityRouter } from './account/procedures.js';
import { createPasskeysRouter } from './passkeys/procedures.js';
import { createTwoStepRouter } from './two-step/procedures.js';
import { createCallerFactory, proceduresFor, router } from './procedures.js';

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
