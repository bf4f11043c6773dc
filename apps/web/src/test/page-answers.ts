import type { PageData } from '../page-data';
import type { RouterOutputs } from '../trpc';
import { ACME_SETTINGS, ADA, SECURITY, TWO_STEP_OFF, TWO_STEP_ON } from './fake-api';

// Pages as the gateway renders them, for the tests of pages without scripts: who is asking, and
// the answers to each page's own queries (a PageEntry's prefetch), as the gateway's caller gives them.

export const NOW = new Date().toISOString();
export const TOMORROW = new Date(Date.now() + 86_400_000).toISOString();
export const TOKEN = 'T'.repeat(43);

export const signedOut: PageData = { locale: 'en', settings: ACME_SETTINGS, user: null };
export const signedIn: PageData = {
  locale: 'en',
  settings: ACME_SETTINGS,
  user: { ...ADA, emailVerified: false },
  twoStep: TWO_STEP_OFF,
  // Neither a passkey nor the app: the account page suggests them (and shows the form that dismisses it).
  security: { ...SECURITY, suggestSecondFactor: true },
};
export const twoStepOn: PageData = { ...signedIn, twoStep: TWO_STEP_ON, security: SECURITY };
export const withPasskey: PageData = {
  ...signedIn,
  twoStep: { enabled: true, methods: ['passkey'], recoveryCodesLeft: 10 },
  security: SECURITY,
};

export const LAPTOP = {
  id: '0b9e4f4c-7d32-4c4e-9a51-5a1f0c2d3e4f',
  name: 'Work laptop',
  kind: null,
  synced: false,
  createdAt: NOW,
  lastUsedAt: null,
};
export const SETUP: RouterOutputs['twoStep']['setupTotp'] = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  uri: 'otpauth://totp/Acme:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  qrCode: 'data:image/png;base64,iVBORw0KGgo=',
};
export const CODES = Array.from({ length: 10 }, (_, i) => `abcde-${String(i).padStart(5, '0')}`);

/** The page's own queries, answered as the gateway's caller would. */
export const ANSWERS: Record<string, unknown> = {
  'security.sessions': {
    sessions: [
      { id: 's-1', current: true, device: 'Firefox 128 on Linux', address: null, createdAt: NOW, lastUsedAt: NOW },
      { id: 's-2', current: false, device: 'Mobile Safari 17', address: null, createdAt: NOW, lastUsedAt: NOW },
    ],
  } satisfies RouterOutputs['security']['sessions'],
  'security.activity': {
    events: [{ id: 'e1', at: NOW, type: 'signed_in', device: null, address: null, failed: false, app: null }],
    nextCursor: 'older',
  } satisfies RouterOutputs['security']['activity'],
  'passkeys.list': { passkeys: [LAPTOP] } satisfies RouterOutputs['passkeys']['list'],
  'apps.list': {
    apps: [
      {
        clientId: 'photo-book',
        name: 'Photo Book',
        firstParty: false,
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        grantedAt: NOW,
        lastUsedAt: NOW,
      },
    ],
  } satisfies RouterOutputs['apps']['list'],
  'emailChange.pending': {
    pending: { newEmail: 'new@example.com', expiresAt: TOMORROW },
  } satisfies RouterOutputs['emailChange']['pending'],
  'email.checkLink': { state: 'usable' },
  'email.verificationLink': { email: ADA.email, realmName: 'Acme Inc' },
  'emailChange.link': { newEmail: 'new@example.com', realmName: 'Acme Inc' },
  'twoStep.pendingTotp': SETUP,
  'upstream.providers': { providers: [] } satisfies RouterOutputs['upstream']['providers'],
  'connections.list': {
    connections: [{ provider: 'github', providerName: 'GitHub', email: ADA.email, connectedAt: NOW, lastUsedAt: NOW }],
    available: [{ id: 'google', name: 'Google' }],
    hasPassword: true,
  } satisfies RouterOutputs['connections']['list'],
};
