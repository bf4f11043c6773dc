import { ProblemError } from '@accounts/api';
import { setupPlugin } from './setup-plugin.js';

/** Header lines Node keeps of a request; a request with more is refused (431), not served without the rest. */
export const MAX_HEADER_LINES = 2000;

/** Requests whose framing cannot be trusted are refused before anything reads them. */
export default setupPlugin('framing', (app) => {
  // Node drops header lines past this count without a word (a proxy's X-Forwarded-For among
  // them); rawHeaders then holds more than the count, and the hook below refuses the request.
  app.server.maxHeadersCount = MAX_HEADER_LINES;
  app.addHook('onRequest', (req, reply, next) => {
    // Node kept only MAX_HEADER_LINES of them: what it dropped could be the header that matters.
    if (req.raw.rawHeaders.length / 2 > MAX_HEADER_LINES) return next(new ProblemError('headers_too_large'));
    // An HTTP/1.0 message with Transfer-Encoding has faulty framing (RFC 9112 §6.1): refused, and
    // the connection closed, so nothing after it is read as a request of its own.
    if (req.raw.httpVersion === '1.0' && req.headers['transfer-encoding'] !== undefined) {
      reply.header('connection', 'close');
      return next(new ProblemError('invalid_body'));
    }
    next();
  });
});
