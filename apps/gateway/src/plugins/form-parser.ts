import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseFormBody } from '../form-body.js';

/** Form bodies (application/x-www-form-urlencoded) read strictly: see parseFormBody. */
export default fp(
  (app: FastifyInstance, _opts, done) => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => {
      try {
        done(null, parseFormBody(body as Buffer));
      } catch (err) {
        done(err as Error);
      }
    });
    done();
  },
  { name: 'form-parser' },
);
