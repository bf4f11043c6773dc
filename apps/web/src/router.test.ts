import { describe, expect, it } from 'vitest';
import { safeNext } from '@accounts/validators/safe-next';

describe('safeNext', () => {
  it('keeps a path on this site, with its query and fragment', () => {
    expect(safeNext('/settings')).toBe('/settings');
    expect(safeNext('/settings/sessions?page=2#top')).toBe('/settings/sessions?page=2#top');
    expect(safeNext('/login?next=%2Fsettings')).toBe('/login?next=%2Fsettings');
  });

  it('never returns to another origin, however the address is spelled', () => {
    // What a browser's URL parser turns into //evil.example (tabs and newlines are dropped, "\" is "/").
    const hostile = [
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/\r\n/evil.example',
      '\t//evil.example',
      ' //evil.example',
      '/.//evil.example',
      '/./\\evil.example',
      'https://evil.example',
      'HTTPS://evil.example/settings',
      'http:evil.example',
      'javascript:alert(1)',
      'data:text/html,x',
      'evil.example',
    ];
    for (const value of hostile) expect(safeNext(value), JSON.stringify(value)).toBe('/account');
  });

  it('treats percent-encoded separators as the path they are, on this site', () => {
    for (const value of ['/%2F%2Fevil.example', '/%5Cevil.example', '/%09/evil.example']) {
      const next = safeNext(value);
      expect(next, value).toBe(value);
      expect(new URL(next, 'https://accounts.example').origin, value).toBe('https://accounts.example');
    }
  });

  it('falls back when there is nothing to return to', () => {
    expect(safeNext(null)).toBe('/account');
    expect(safeNext('')).toBe('/account');
    expect(safeNext('//evil.example', '/settings')).toBe('/settings');
  });
});
