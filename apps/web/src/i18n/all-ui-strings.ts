import { addUiStrings } from './ui-strings';
import { strings as de } from './ui-strings-de';
import { strings as fr } from './ui-strings-fr';

// Every language's words, for the server's render and the tests: imported once for its effect.
// A browser loads only its page's language (loadUiStrings).
addUiStrings('de', de);
addUiStrings('fr', fr);
