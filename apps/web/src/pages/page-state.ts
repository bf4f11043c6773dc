// What a page hands the next one in history state (router.tsx's PageState), and how the next one
// reads it back: both pages import it from here, not from each other.

/** What the settings page hands the account page after a password change. */
export type PasswordChanged = {
  passwordChanged: { otherSessionsRevoked: number };
};

/** The account page's confirmation to show, if it was opened by a password change. */
export function passwordChangedOf(state: unknown): PasswordChanged['passwordChanged'] | null {
  const changed = (state as Partial<PasswordChanged> | null)?.passwordChanged;
  return changed && typeof changed.otherSessionsRevoked === 'number' ? changed : null;
}

/** The router state of the sign-in page after a password reset (never the password or the token). */
export type PasswordReset = { passwordReset: true };

export const wasPasswordReset = (state: unknown): boolean =>
  (state as Partial<PasswordReset> | null)?.passwordReset === true;

/** What registering hands the page it leads to (the account page): a confirmation link went to the address. */
export type Registered = { registered: true };

export const wasRegistered = (state: unknown): boolean => (state as Partial<Registered> | null)?.registered === true;
