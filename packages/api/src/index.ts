// The database's types, for the transports that hand a handle to the functions below.
export type { Database, Realm } from '@accounts/db';
export { addressGroup } from './account-lockout.js';
export {
  AccountCommandError,
  disableAccount,
  enableAccount,
  listAccounts,
  resetSecondStep,
  revokeAccountSessions,
  revokeRealmSessions,
  type AccountListing,
  type OperatorMail,
} from './account-admin.js';
export { describeDevice, displayAddress } from './device.js';
export * from './routers/security-outputs.js';
export * from './routers/email-outputs.js';
export { meResult, passwordChangedResult, settingsResult, userResult } from './routers/account-outputs.js';
export * from './routers/two-step-outputs.js';
export * from './routers/passkeys-outputs.js';
export * from './routers/email-change-outputs.js';
export * from './routers/account-data-outputs.js';
export { createVault, newSecretKey, parseSecretKey, SECRET_KEY_BYTES, type Vault } from './vault.js';
export { DEFAULT_ACCOUNT_CONFIG, type AccountConfig, type MailCap } from './config.js';
export {
  notReady,
  outageProblem,
  PROBLEM_STATUS,
  ProblemError,
  problemForStatus,
  toProblem,
  trpcCodeOf,
  type Problem,
  type ProblemCode,
} from './errors.js';
export {
  costOf,
  createHasher,
  defaultWorkers,
  pepperId,
  pepperIdOf,
  PUBLIC_DEFAULT_PEPPER,
  type Hasher,
  type HasherOptions,
  type HasherStats,
} from './password-hashing.js';
export {
  createRefusalRecorder,
  REFUSAL_WINDOW_MS,
  REFUSALS_PER_WINDOW,
  type RefusalRecorder,
  type RefusalType,
} from './refusal-events.js';
export { resealTotpSecrets, secretCensus, type SecretCensus } from './secret-rotation.js';
export type { HashingObserver, HashingPool, Outcome, ProcedureObserver } from './observers.js';
export { sessionCacheOf } from './session-cache.js';
export { databaseAnswers } from './readiness.js';
export { purgeExpired, setEventRetention, type Purged, type RetentionOptions } from './retention.js';
export { createRealm, DEFAULT_REALM_SLUG, findRealm, listRealms, RealmError } from './realms.js';
export { callerFor, createAppRouter, type AppRouter } from './router.js';
export { createSession, isSessionTokenShape, MAX_SESSIONS_PER_ACCOUNT, type IssuedSession } from './sessions.js';
export {
  trpcErrorBody,
  type Context,
  type RateLimitedAction,
  type ProcedureMeta,
  type RequestContext,
  type SessionSink,
} from './trpc.js';
export type { PublicUser } from './users.js';
export { fieldErrorSchema, okResult, PROBLEM_CODES, problemSchema, publicUserSchema } from './outputs.js';
export {
  backoffMs,
  claimDueMails,
  enqueueMail,
  markFailed,
  markSent,
  openLink,
  outboxBacklog,
  recipientKey,
  sealLink,
  type OutboxPolicy,
  type OutboxRow,
} from './mail/outbox.js';
export {
  MAIL_TEMPLATES,
  renderMail,
  type MailPayload,
  type MailTemplate,
  type RenderedMail,
} from './mail/templates.js';
export { realmRequiresVerifiedEmail, setRequireVerifiedEmail } from './realm-settings.js';
