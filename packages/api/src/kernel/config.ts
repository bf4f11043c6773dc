import { DEFAULT_POLICY, type PasswordPolicy } from '@accounts/validators';

/** Account rules that deployments may tune; the gateway fills it from the environment. */
export interface AccountConfig {
  passwordPolicy: PasswordPolicy;
  /** Absolute session lifetime. */
  sessionTtlMs: number;
  /** A session unused for this long expires. */
  sessionIdleMs: number;
  /** Failed password checks (sign-in and current_password) allowed per account and client in the window. */
  maxPasswordFailures: number;
  failureWindowMs: number;
  /** What the web app's header and page titles call the service. */
  productName: string;
  /** Failed checks per account, from all clients that are not known devices together, in their window. */
  accountFailureCap: number;
  accountCapWindowMs: number;
  /** A known-device credential unused for this long is forgotten (and its cookie expires). */
  knownDeviceTtlMs: number;
  /** How long a mailed password-reset link works. */
  resetTokenTtlMs: number;
  /** How long a mailed address-verification link works. */
  verifyTokenTtlMs: number;
  /** The caps on mail to one address (from every realm), each kind counted apart over `windowMs`; see mail/outbox.ts. */
  mailCap: MailCap;
  /** Outgoing calls (upstream identity providers) may reach plain http on loopback: tests and private networks. */
  allowPrivateOutbound: boolean;
}

export interface MailCap {
  /** Links asked for to the address itself (reset, verification): queued while it has had fewer of them than this; 0: no cap. */
  requested: number;
  /** Mail other people's actions cause (change-of-address links and attempts onto it, notices): likewise, counted apart; 0: no cap. */
  caused: number;
  windowMs: number;
}

export const DEFAULT_ACCOUNT_CONFIG: AccountConfig = {
  passwordPolicy: DEFAULT_POLICY,
  sessionTtlMs: 30 * 24 * 3600_000,
  sessionIdleMs: 7 * 24 * 3600_000,
  maxPasswordFailures: 5,
  failureWindowMs: 15 * 60_000,
  productName: 'Accounts',
  // NIST SP 800-63B-4 §3.2.2: at most 100 consecutive failed attempts on one account.
  accountFailureCap: 100,
  accountCapWindowMs: 24 * 3600_000,
  knownDeviceTtlMs: 365 * 24 * 3600_000,
  resetTokenTtlMs: 30 * 60_000,
  verifyTokenTtlMs: 24 * 3600_000,
  mailCap: { requested: 3, caused: 10, windowMs: 600_000 },
  allowPrivateOutbound: false,
};
