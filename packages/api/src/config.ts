import { DEFAULT_POLICY, type PasswordPolicy } from '@accounts/validators';

/** Account rules that deployments may tune; the gateway fills it from the environment. */
export interface AccountConfig {
  passwordPolicy: PasswordPolicy;
  /** Absolute session lifetime. */
  sessionTtlMs: number;
  /** A session unused for this long expires. */
  sessionIdleMs: number;
  /** Failed password checks (sign-in and current_password) allowed per account in the window. */
  maxPasswordFailures: number;
  failureWindowMs: number;
}

export const DEFAULT_ACCOUNT_CONFIG: AccountConfig = {
  passwordPolicy: DEFAULT_POLICY,
  sessionTtlMs: 30 * 24 * 3600_000,
  sessionIdleMs: 7 * 24 * 3600_000,
  maxPasswordFailures: 5,
  failureWindowMs: 15 * 60_000,
};
