// The pages behind mailed links (and the confirmation of a new address) and the account page's address status, in one chunk loaded on
// demand: one more file for the first visit's script to know of, not several.
export { EmailStatus } from './EmailStatus';
export { ConfirmEmailChangePage } from './ConfirmEmailChangePage';
export { ForgotPasswordPage } from './ForgotPasswordPage';
export { ResetPasswordPage } from './ResetPasswordPage';
export { VerifyEmailPage } from './VerifyEmailPage';
