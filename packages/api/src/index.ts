// The database's types, for the transports that hand a handle to the functions below.
export type { Database, Realm } from '@accounts/db';
export { shownRealm, type ShownRealm } from './kernel/context.js';
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
} from './operator/accounts.js';
export { addressGroup, describeDevice, displayAddress } from './kernel/device.js';
export * from './sign-in/outputs.js';
export * from './sessions/outputs.js';
export * from './passwords/outputs.js';
export * from './two-step/outputs.js';
export * from './passkeys/outputs.js';
export * from './email/outputs.js';
export * from './email/change-outputs.js';
export * from './account/outputs.js';
export * from './account/export-outputs.js';
export { createVault, newSecretKey, parseSecretKey, SECRET_KEY_BYTES, type Vault } from './kernel/vault.js';
export { DEFAULT_ACCOUNT_CONFIG, type AccountConfig, type MailCap } from './kernel/config.js';
export {
  notReady,
  outageProblem,
  PROBLEM_STATUS,
  ProblemError,
  problemCodeOf,
  problemForStatus,
  toProblem,
  trpcCodeOf,
  type Problem,
  type ProblemCode,
} from './kernel/errors.js';
export {
  costOf,
  createHasher,
  defaultWorkers,
  pepperId,
  pepperIdOf,
  PUBLIC_DEFAULT_PEPPER,
  type HasherOptions,
} from './credentials/password-hashing.js';
export {
  createRefusalRecorder,
  REFUSAL_WINDOW_MS,
  REFUSALS_PER_WINDOW,
  type RefusalRecorder,
  type RefusalType,
} from './records/refusal-events.js';
export { resealTotpSecrets, secretCensus, type SecretCensus } from './operator/secret-rotation.js';
export type { HashingObserver, HashingPool, Outcome, ProcedureObserver } from './kernel/observers.js';
export { sessionCacheOf } from './records/session-cache.js';
export { databaseAnswers } from './kernel/readiness.js';
export { purgeExpired, setEventRetention, type Purged, type RetentionOptions } from './operator/retention.js';
export {
  createRealm,
  DEFAULT_REALM_SLUG,
  findRealm,
  findRealmById,
  listRealms,
  RealmError,
  renameRealm,
} from './records/realms.js';
export { callerFor, createAppRouter, type AppRouter, type ProcedurePath } from './router.js';
export { isSessionTokenShape, MAX_SESSIONS_PER_ACCOUNT } from './records/sessions.js';
export { trpcErrorBody } from './procedures.js';
export type {
  Context,
  Hasher,
  HasherStats,
  IssuedSession,
  ProcedureMeta,
  RateLimitedAction,
  RequestContext,
  SessionSink,
} from './kernel/context.js';
export type { PublicUser } from './records/users.js';
export { fieldErrorSchema, okResult, PROBLEM_CODES, problemSchema, publicUserSchema } from './kernel/outputs.js';
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
export { realmRequiresVerifiedEmail, setRequireVerifiedEmail } from './records/realm-settings.js';
// The OpenID Connect provider's storage and rules (the gateway mounts the provider itself).
export {
  ClientError,
  clientSecretMatches,
  clientUriProblem,
  createClient,
  deleteClient,
  findClient,
  listClients,
  rotateClientSecret,
  type ClientListing,
  type NewClient,
} from './oidc/clients.js';
export {
  artifactStore,
  bindProviderSession,
  inRotationScope,
  latestGrantId,
  takeSuccessorId,
  type ArtifactAdapter,
  type ArtifactStoreOptions,
} from './oidc/artifacts.js';
export {
  claimDueLogouts,
  enqueueLogout,
  logoutDone,
  logoutFailed,
  LOGOUT_MAX_ATTEMPTS,
  type LogoutRow,
} from './oidc/logouts.js';
export {
  realmSigningKeys,
  listSigningKeys,
  rotateSigningKeys,
  signingKeysVersion,
  type SigningJwk,
} from './oidc/keys.js';
export {
  ACR_MULTI_FACTOR,
  ACR_SINGLE_FACTOR,
  accountClaims,
  findAccountBySubject,
  OIDC_SCOPE_CLAIMS,
  sessionSignIn,
  signedInSession,
  type SessionSignIn,
} from './oidc/accounts.js';
export { recordAppSignIn, type AppSignIn } from './oidc/app-sign-in.js';
export { APP_SCOPES, type AppScope } from './oidc/apps-outputs.js';
export { OIDC_CLOCK_TOLERANCE_SECONDS, OIDC_LIFETIMES } from './kernel/oidc-lifetimes.js';
export {
  addProvider,
  listProviders,
  removeProvider,
  ProviderError,
  type NewProvider,
  type ProviderListing,
} from './credentials/upstream/providers.js';
export { PROVIDER_KINDS, type ProviderKind } from './credentials/upstream/kinds.js';
