export * from './email.js';
export * from './field-errors.js';
export * from './messages.js';
export * from './name.js';
export * from './password-policy.js';
export * from './schemas.js';
export * from './security.js';
export * from './realm.js';
