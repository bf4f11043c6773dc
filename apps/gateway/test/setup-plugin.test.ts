import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { setupPlugin } from '../src/plugins/setup-plugin.js';

describe('plugins that only set up', () => {
  it('reject the registration when their set-up throws, instead of escaping the process', async () => {
    const app = Fastify();
    const broken = setupPlugin('broken', () => {
      throw new Error('bad options');
    });
    await expect(app.register(broken)).rejects.toThrow('bad options');
    await app.close();
  });

  it('hand the app and their options to the set-up', async () => {
    const app = Fastify();
    await app.register(
      setupPlugin<{ greeting: string }>('greets', (instance, { greeting }) => {
        instance.get('/hello', () => ({ greeting }));
      }),
      { greeting: 'hi' },
    );
    expect((await app.inject('/hello')).json()).toEqual({ greeting: 'hi' });
    await app.close();
  });
});
