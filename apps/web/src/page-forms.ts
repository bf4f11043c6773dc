import type { ProcedurePath } from '@accounts/api';
import type { FormDone, PageFormTarget } from './page-data';
import { safeNext } from '@accounts/validators/safe-next';
import type { RouterOutputs } from './trpc';
import type { PasswordChanged, PasswordReset, Registered } from './pages/page-state';

// Every form of the pages, by the name its `_form` field carries: the procedure it calls and
// where a success leads. The app's pages and the gateway (a form posted without scripts) both
// read it, so a form goes to the same place either way.

type Outputs = RouterOutputs;
type OutputOf<P extends ProcedurePath> = P extends `${infer R extends keyof Outputs}.${infer Q}`
  ? Outputs[R][Q & keyof Outputs[R]]
  : never;

interface PageFormSpec<P extends ProcedurePath> {
  procedure: P;
  /** The pages that show it ('*': every page, like signing out in the header). */
  pages: readonly string[] | '*';
  /** Refusals that are the form's next step (the second step of a sign-in). */
  continues?: readonly string[];
  /** The answer is a file to keep. */
  download?: true;
  /** Where a success leads (`next`: the page's `?next=`, judged by safeNext); without it, the same page. */
  done?: (result: OutputOf<P>, next: string) => FormDone;
}

const pageForm = <P extends ProcedurePath>(spec: PageFormSpec<P>) => spec;

const toNext = (_result: unknown, next: string): FormDone => ({ to: next });
/** The hub's `?notice=` after a sign-in that used up a recovery code (pages/account/Notices.tsx says how many are left). */
export const RECOVERY_CODE_NOTICE = 'recovery_code_used';
/** Where a sign-in completed with a recovery code lands: the account page, which says one was used. */
export const RECOVERY_CODE_USED = `/account?notice=${RECOVERY_CODE_NOTICE}`;
const toSignIn = (): FormDone => ({ to: '/login' });

export const PAGE_FORMS = {
  register: pageForm({
    procedure: 'account.register',
    pages: ['/register'],
    // In a realm that signs in only confirmed addresses no session starts: the page says to confirm.
    // Otherwise the account page says where the confirmation link went.
    done: (result, next) =>
      result.emailVerificationRequired ? null : { to: next, state: { registered: true } satisfies Registered },
  }),
  signIn: pageForm({
    procedure: 'account.signIn',
    pages: ['/login'],
    continues: ['second_factor_required'],
    done: toNext,
  }),
  // Signed in with a recovery code (one fewer now; the app may be lost): the account page says so,
  // unless the sign-in was for another page (an app's sign-in goes on).
  secondStep: pageForm({
    procedure: 'account.signInSecondStep',
    pages: ['/login'],
    done: (result, next) => ({
      to: result.recoveryCodeUsed && next === '/account' ? RECOVERY_CODE_USED : next,
    }),
  }),
  signOut: pageForm({ procedure: 'account.signOut', pages: '*', done: toSignIn }),
  // Also on a reset link's page, once the link no longer works: "Send a new link".
  forgotPassword: pageForm({ procedure: 'email.forgotPassword', pages: ['/forgot-password', '/reset-password'] }),
  // The sign-in page opens with the account's address filled in (on the server too).
  resetPassword: pageForm({
    procedure: 'email.resetPassword',
    pages: ['/reset-password'],
    done: (result) => ({
      to: `/login?email=${encodeURIComponent(result.email)}`,
      state: { passwordReset: true } satisfies PasswordReset,
    }),
  }),
  verifyEmail: pageForm({ procedure: 'email.verifyEmail', pages: ['/verify-email'] }),
  // Also on a verification link's page, once the link no longer works (signed in).
  resendVerification: pageForm({
    procedure: 'email.resendVerification',
    pages: ['/account', '/settings/email', '/verify-email'],
  }),
  changePassword: pageForm({
    procedure: 'account.changePassword',
    pages: ['/settings'],
    done: (result) => ({
      to: '/account',
      state: { passwordChanged: { otherSessionsRevoked: result.otherSessionsRevoked } } satisfies PasswordChanged,
    }),
  }),
  dismissSecondFactorSuggestion: pageForm({ procedure: 'account.dismissSecondFactorSuggestion', pages: ['/account'] }),
  changeName: pageForm({ procedure: 'security.changeName', pages: ['/settings/name'] }),
  requestEmailChange: pageForm({ procedure: 'emailChange.request', pages: ['/settings/email'] }),
  cancelEmailChange: pageForm({ procedure: 'emailChange.cancel', pages: ['/settings/email'] }),
  confirmEmailChange: pageForm({ procedure: 'emailChange.confirm', pages: ['/confirm-email-change'] }),
  revokeSession: pageForm({
    procedure: 'security.revokeSession',
    pages: ['/settings/sessions'],
    // Ending this device's own session signs it out.
    done: (result) => (result.signedOut ? { to: '/login' } : null),
  }),
  revokeOtherSessions: pageForm({ procedure: 'security.revokeOtherSessions', pages: ['/settings/sessions'] }),
  revokeApp: pageForm({ procedure: 'apps.revoke', pages: ['/settings/apps'] }),
  removeConnection: pageForm({ procedure: 'connections.remove', pages: ['/settings/connections'] }),
  setupTotp: pageForm({ procedure: 'twoStep.setupTotp', pages: ['/settings/two-step'] }),
  enableTotp: pageForm({ procedure: 'twoStep.enableTotp', pages: ['/settings/two-step'] }),
  disableTotp: pageForm({ procedure: 'twoStep.disableTotp', pages: ['/settings/two-step'] }),
  regenerateRecoveryCodes: pageForm({ procedure: 'twoStep.regenerateRecoveryCodes', pages: ['/settings/two-step'] }),
  renamePasskey: pageForm({ procedure: 'passkeys.rename', pages: ['/settings/passkeys'] }),
  removePasskey: pageForm({ procedure: 'passkeys.remove', pages: ['/settings/passkeys'] }),
  exportData: pageForm({ procedure: 'accountData.export', pages: ['/settings/data'], download: true }),
  deleteAccount: pageForm({ procedure: 'security.deleteAccount', pages: ['/settings/delete'] }),
} as const;

export type PageFormName = keyof typeof PAGE_FORMS;

const isFormName = (name: string): name is PageFormName => Object.hasOwn(PAGE_FORMS, name);
const pathOf = (href: string) => new URL(href, 'http://local').pathname.replace(/(.)\/+$/, '$1');
const nextOf = (href: string) => safeNext(new URL(href, 'http://local').searchParams.get('next'));

/** Whether the page at `path` shows any form (every page shows those of every page: signing out). */
export const hasForms = (path: string) =>
  Object.values<PageFormSpec<ProcedurePath>>(PAGE_FORMS).some(
    (spec) => spec.pages === '*' || spec.pages.includes(path),
  );

/** The form `name` of the page at `href`, or null when that page has no such form. */
export function pageFormAt(href: string, name: string): PageFormTarget | null {
  if (!isFormName(name)) return null;
  const spec: PageFormSpec<ProcedurePath> = PAGE_FORMS[name];
  if (spec.pages !== '*' && !spec.pages.includes(pathOf(href))) return null;
  return { procedure: spec.procedure, continues: spec.continues ?? [], download: spec.download === true };
}

/** Where the form's success leads from the page at `href`, as the app goes there (null: it stays). */
export function formDone<N extends PageFormName>(
  name: N,
  result: OutputOf<(typeof PAGE_FORMS)[N]['procedure']>,
  href: string,
): FormDone {
  const spec = PAGE_FORMS[name] as PageFormSpec<ProcedurePath>;
  return spec.done?.(result, nextOf(href)) ?? null;
}
