import type { AccountConfig } from './config.js';
import { createAccountRouter } from './routers/account.js';
import { createEmailRouter } from './routers/email.js';
import { createSecurityRouter } from './routers/security.js';
import { createCallerFactory, router } from './trpc.js';

/** The one router, built from the deployment's account configuration. */
export function createAppRouter(config: AccountConfig) {
  return router({ account: createAccountRouter(config), email: createEmailRouter(config), security: createSecurityRouter(config) });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

/** Server-side calls of the same procedures (the form routes, tests). */
export const callerFor = (appRouter: AppRouter) => createCallerFactory(appRouter);
