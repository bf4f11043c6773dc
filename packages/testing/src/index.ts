// What tests on every layer share: one of each helper, so each behaves the same everywhere.
export { STRONG, STRONG2, uniqueEmail } from './accounts.js';
export {
  createTempDatabase,
  createTestDatabase,
  seedDataDir,
  testDrivers,
  type TempDatabase,
  type TestDatabase,
} from '@accounts/db/testing';
export { httpClient, type Client, type Response } from './http.js';
export { freePort, waitForHealth } from './ports.js';
export { base32Decode, msToNextStep, parseOtpauth, totpCode } from './totp.js';
export { SoftAuthenticator, type AuthenticatorOptions } from './webauthn.js';
