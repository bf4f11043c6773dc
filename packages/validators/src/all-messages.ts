import { addMessages } from './messages.js';
import { messages as de } from './messages-de.js';
import { messages as fr } from './messages-fr.js';

// Every language's messages, for the server (answers and pages in the request's language): imported
// once for its effect. A browser loads only its page's language (loadMessages).
addMessages('de', de);
addMessages('fr', fr);
