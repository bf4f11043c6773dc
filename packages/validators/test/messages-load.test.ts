import { describe, expect, it } from 'vitest';
import { LOCALES, loadMessages, message, MESSAGE_CODES } from '../src/index.js';

// A browser carries English and loads its page's language on demand (the server imports them
// all: all-messages.ts). This file imports neither, as a browser's first script.
describe('messages loaded per language', () => {
  it('answers in English until a language is loaded, then in it, for every message', async () => {
    expect(message('required', 'de')).toBe(message('required', 'en'));
    await loadMessages('de');
    expect(message('required', 'de')).toBe('Dieses Feld ist erforderlich.');
    expect(message('required', 'fr')).toBe(message('required', 'en'));
    await loadMessages('fr');
    for (const locale of LOCALES)
      for (const code of MESSAGE_CODES) expect(message(code, locale), `${locale} ${code}`).not.toBe('');
    expect(message('required', 'fr')).not.toBe(message('required', 'en'));
  });
});
