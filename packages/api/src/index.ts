export { DEFAULT_ACCOUNT_CONFIG, type AccountConfig } from './config.js';
export { PROBLEM_STATUS, ProblemError, problemForStatus, toProblem, type Problem, type ProblemCode } from './errors.js';
export { costOf, createHasher, defaultWorkers, type Hasher, type HasherOptions } from './password-hashing.js';
export { createRealm, DEFAULT_REALM_SLUG, findRealm, listRealms, RealmError } from './realms.js';
export { appRouter, createCaller, type AppRouter } from './router.js';
export type { IssuedSession } from './sessions.js';
export type { Context, RateLimitedAction, SessionSink } from './trpc.js';
export type { PublicUser } from './users.js';
