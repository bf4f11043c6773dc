import { TRPCClientError } from '@trpc/client';
import { message } from '@accounts/validators';
import { describe, expect, it } from 'vitest';
import { describeFailure } from './failure';

/** A client error as httpLink builds it from the gateway's JSON answer. */
const refusal = (problem: Record<string, unknown>) =>
  TRPCClientError.from({
    error: { message: typeof problem.title === 'string' ? problem.title : '', code: -32000, data: { problem } },
  });

describe('describeFailure', () => {
  it('re-renders field errors by code in the page language', () => {
    const error = refusal({
      status: 422,
      code: 'validation_failed',
      title: 'x',
      errors: [{ field: 'email', code: 'invalid_email', message: 'Saisissez…' }],
    });
    expect(describeFailure(error, 'de')).toEqual({
      fieldErrors: [{ field: 'email', code: 'invalid_email', message: message('invalid_email', 'de') }],
      message: null,
    });
  });

  it('says how long to wait after too many attempts', () => {
    const error = refusal({ status: 429, code: 'too_many_attempts', title: 'x', retryAfter: 90 });
    expect(describeFailure(error, 'fr').message).toBe(message('too_many_attempts', 'fr', { retryAfter: 90 }));
  });

  it('keeps the server wording when a rate limit comes without a wait time', () => {
    const error = refusal({ status: 429, code: 'rate_limited', title: 'Too many requests. Try again later.' });
    expect(describeFailure(error, 'en').message).toBe('Too many requests. Try again later.');
  });

  it('asks to try again later after a server fault', () => {
    const error = refusal({ status: 500, code: 'internal', title: 'x' });
    expect(describeFailure(error, 'en').message).toBe(`${message('internal', 'en')} Please try again later.`);
  });

  it('blames the connection only when no answer came back', () => {
    const expected = 'The service could not be reached. Check your internet connection, then try again.';
    expect(describeFailure(new TypeError('Failed to fetch'), 'en').message).toBe(expected);
    expect(describeFailure(TRPCClientError.from(new TypeError('Failed to fetch')), 'en').message).toBe(expected);
  });

  it('words an answer that is not ours (a proxy error page) as a fault of the service', () => {
    const proxyPage = TRPCClientError.from(new SyntaxError('Unexpected token < in JSON at position 0'));
    expect(describeFailure(proxyPage, 'en').message).toBe(
      'The service is having a problem on its side. Please try again in a few minutes.',
    );
  });

  it('makes wrong credentials a message about the form, not about the password field', () => {
    const error = refusal({
      status: 422,
      code: 'validation_failed',
      title: 'x',
      errors: [{ field: 'password', code: 'credentials_invalid', message: 'x' }],
    });
    expect(describeFailure(error, 'de')).toEqual({ fieldErrors: [], message: message('credentials_invalid', 'de') });
  });
});
