import { setupPlugin } from './setup-plugin.js';
import { parseFormBody } from '../form-body.js';

/** Form bodies (application/x-www-form-urlencoded) read strictly: see parseFormBody. */
export default setupPlugin('form-parser', (app) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (err) {
      done(err as Error);
    }
  });
});
