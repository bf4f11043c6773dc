/** Every page address of the app (and one that is none), for tests that go through them all. */
export const PAGES = ['/', '/login', '/register', '/account', '/settings', '/settings/sessions', '/settings/activity', '/settings/name', '/settings/delete', '/forgot-password', '/reset-password?token=abc', '/verify-email?token=abc', '/no/such/page'];
