/** Passwords every policy in the tests accepts (long, not common, unlike any test name or email). */
export const STRONG = 'violet tractor sings at midnight';
export const STRONG2 = 'quiet harbor lanterns drifting east';

let n = 0;
/** An email no other test (file, process, run) uses. */
export const uniqueEmail = (tag = 'user') => `${tag}.${process.pid}.${Date.now()}.${n++}@example.com`;
