import { accountRouter } from './routers/account.js';
import { createCallerFactory, router } from './trpc.js';

export const appRouter = router({ account: accountRouter });
export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
