export * from './client.js';
export type { QueryObserver } from './query-observer.js';
export type { AuthChange, AuthChangeFeed } from './auth-changes.js';
export { DataDirBusyError } from './data-dir-lock.js';
export * from './errors.js';
export * from './schema.js';
