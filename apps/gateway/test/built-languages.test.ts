import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from './support/process.js';

// The build an operator runs answers in every language: English comes with the browser's first
// script, the others are loaded by it on demand, and the server's bundles must carry them all
// (a bundler that drops an import kept only for its effect would leave them English).
const BUILT = new URL('../dist/main.js', import.meta.url);

describe('the built gateway in every language', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT.pathname} is missing: build the gateway first (npm test does)`);
    gateway = await spawnGateway({ DATA_DIR: 'memory://', BCRYPT_COST: '4' });
  });
  afterAll(() => gateway?.stop());

  it.each([
    ['de', 'Die Passwörter stimmen nicht überein.'],
    ['fr', 'Les mots de passe ne correspondent pas.'],
    ['en', 'The passwords do not match.'],
  ])('answers a refused registration in %s', async (language, mismatch) => {
    const res = await gateway.client.form(
      '/users/register',
      { name: 'Ada', email: 'ada@example.com', password: 'violet tractor sings at midnight', password2: 'other' },
      { headers: { 'accept-language': language } },
    );
    expect(res.status).toBe(422);
    const body = JSON.parse(res.text) as { errors: { field: string; message: string }[] };
    expect(body.errors.find((e) => e.field === 'password2')?.message).toBe(mismatch);
  });
});
