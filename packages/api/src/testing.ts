// Test conveniences, apart from the package's face: sessions made directly, for tests that need
// many at once (the operator's commands, the sessions cap). The service itself starts a session
// only through sign-in/flow.ts.
export { createSession } from './records/sessions.js';
