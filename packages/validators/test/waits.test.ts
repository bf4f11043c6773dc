// Every language, as the server has them.
import '../src/all-messages.js';
import { describe, expect, it } from 'vitest';
import { humanWait, message } from '../src/index.js';

describe('waits in words', () => {
  it('says seconds under a minute, else about so many minutes or hours, rounded up', () => {
    expect([1, 45, 60, 61, 597, 3599, 3600, 5401].map((s) => humanWait(s, 'en'))).toEqual([
      '1 second',
      '45 seconds',
      'about 1 minute',
      'about 2 minutes',
      'about 10 minutes',
      'about 60 minutes',
      'about 1 hour',
      'about 2 hours',
    ]);
    expect(humanWait(0.2, 'en')).toBe('1 second');
  });

  it('fills the wait into the rate-limit and lockout messages in each language', () => {
    expect(message('too_many_attempts', 'en', { retryAfter: 597 })).toBe(
      'Too many failed attempts (passwords or codes) for this account. Try again in about 10 minutes.',
    );
    expect(message('rate_limited', 'de', { retryAfter: 30 })).toBe(
      'Zu viele Anfragen. Versuchen Sie es in 30 Sekunden erneut.',
    );
    expect(message('rate_limited', 'fr', { retryAfter: 7200 })).toBe(
      'Trop de requêtes. Réessayez dans environ 2\u00a0heures.',
    );
  });
});
