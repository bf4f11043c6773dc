import { describe, expect, it } from 'vitest';
import { isUnavailable, openDatabase, sqlState } from '../src/index.js';

// How a driver error reaches the service: drizzle's "Failed query" error, its cause the driver's.
const wrapped = (cause: Error) => Object.assign(new Error('Failed query: select 1'), { cause });
const socketError = (code: string) => Object.assign(new Error(`write ${code}`), { code, errno: -32, syscall: 'write' });

describe('database errors', () => {
  it('reads a SQLSTATE through the wrapping, and never takes a socket error for one', () => {
    expect(sqlState(wrapped(Object.assign(new Error('duplicate key'), { code: '23505' })))).toBe('23505');
    expect(sqlState(wrapped(Object.assign(new Error('admin shutdown'), { code: '57P01' })))).toBe('57P01');
    for (const code of ['EPIPE', 'EINTR', 'EBUSY']) expect(sqlState(wrapped(socketError(code))), code).toBeUndefined();
  });

  it('counts a broken or refused connection and a shutting-down server as unavailable, a bad query not', () => {
    for (const code of ['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'CONNECTION_CLOSED'])
      expect(isUnavailable(wrapped(wrapped(socketError(code)))), code).toBe(true);
    expect(isUnavailable(wrapped(Object.assign(new Error('terminating connection'), { code: '57P01' })))).toBe(true);
    expect(isUnavailable(wrapped(Object.assign(new Error('too many connections'), { code: '53300' })))).toBe(true);
    expect(isUnavailable(wrapped(Object.assign(new Error('syntax error'), { code: '42601' })))).toBe(false);
    expect(isUnavailable(wrapped(Object.assign(new Error('duplicate key'), { code: '23505' })))).toBe(false);
  });

  it('counts a refused PostgreSQL connection as unavailable', async () => {
    const handle = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', poolSize: 1, hearChanges: false });
    try {
      const err = await handle.ping().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isUnavailable(err)).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
