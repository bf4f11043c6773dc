import type { FastifyInstance, FastifyPluginCallback, FastifyPluginOptions } from 'fastify';
import fp from 'fastify-plugin';

/**
 * A plugin whose set-up only adds hooks, parsers and decorations (nothing to await). A throw
 * while it sets up rejects `app.register`, as an async plugin's would; a callback plugin's throw
 * would escape the process instead, before the server could close what it had opened.
 */
export function setupPlugin<O extends FastifyPluginOptions = FastifyPluginOptions>(
  name: string,
  setup: (app: FastifyInstance, opts: O) => void,
) {
  const plugin: FastifyPluginCallback<O> = (app, opts, done) => {
    try {
      setup(app, opts);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  };
  return fp(plugin, { name });
}
