import { expect } from 'vitest';
import { expectPostRefusals, type Get, type OpenApiDocument, type Post } from './openapi.js';

/**
 * Answers every documented status of the account page's own route (but 503) through the OpenAPI
 * test's checked `post` and `get`, so each is held to the document; and reads what the document
 * says of `GET /users/me`'s `security`.
 */
export async function exerciseHubRoutes({
  post,
  get,
  signedUp,
  doc,
}: {
  post: Post;
  get: Get;
  signedUp: () => Promise<{ email: string; cookie: string }>;
  doc: OpenApiDocument;
}) {
  type Schema = { properties: Record<string, Schema>; required?: string[]; anyOf?: object[]; type?: string };
  const meBody = doc.paths['/users/me']!.get!.responses['200']!.content!['application/json']!.schema as Schema;
  const security = meBody.properties.security!;
  expect(meBody.required).toContain('security');
  expect(security.required?.sort()).toEqual(['passwordChangedAt', 'suggestSecondFactor']);
  expect(security.properties.passwordChangedAt).toEqual({
    anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
  });
  expect(security.properties.suggestSecondFactor).toEqual({ type: 'boolean' });

  const url = '/users/dismiss_second_factor_suggestion';
  const { cookie } = await signedUp();
  expect((await get('/users/me', { cookie })).json.security.suggestSecondFactor).toBe(true);
  // The refusals every form route shares (a route without fields: no repeated or invalid one to send).
  await expectPostRefusals(post, { [url]: {} }, { cookie, signedIn: true });
  expect((await post(url, {}, { cookie })).json).toEqual({ ok: true });
  expect((await get('/users/me', { cookie })).json.security.suggestSecondFactor).toBe(false);
  // The limit on the account's writes.
  let writes = 0;
  while ((await post(url, {}, { cookie })).status === 200) expect(++writes).toBeLessThan(100);
  expect((await post(url, {}, { cookie })).json.code).toBe('rate_limited');
}
