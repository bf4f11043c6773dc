import { expect } from 'vitest';
import { STRONG } from './gateway.js';
import { expectPostRefusals, type Get, type Post } from './openapi.js';

/**
 * Answers every documented status of the security page's routes (but 503) through the
 * OpenAPI test's checked `post` and `get`, so each is held to the document.
 */
export async function exerciseSecurityRoutes({
  post,
  get,
  signedUp,
}: {
  post: Post;
  get: Get;
  signedUp: () => Promise<{ email: string; cookie: string }>;
}) {
  const { cookie } = await signedUp();
  const ids = (await get('/users/sessions', { cookie })).json.sessions.map((s: { id: string }) => s.id);
  expect(ids).toHaveLength(1);
  expect((await get('/users/sessions')).json.code).toBe('unauthenticated');
  expect((await get('/users/sessions', {}, 'nope.localhost')).json.code).toBe('realm_not_found');

  const page = await get('/users/activity', { cookie });
  expect(page.status).toBe(200);
  expect((await get('/users/activity?cursor=%25', { cookie })).json.code).toBe('validation_failed');
  expect((await get('/users/activity?cursor=a&cursor=b', { cookie })).json.code).toBe('duplicate_field');
  expect((await get('/users/activity')).json.code).toBe('unauthenticated');
  expect((await get('/users/activity', {}, 'nope.localhost')).json.code).toBe('realm_not_found');

  // The refusals every form route shares.
  const bodies: Record<string, Record<string, string>> = {
    '/users/revoke_session': { session_id: '6f1c2a9e-0000-4000-8000-000000000000' },
    '/users/revoke_other_sessions': { current_password: 'not the password at all' },
    '/users/change_name': { name: 'Grace Hopper' },
    '/users/delete_account': { current_password: 'not the password at all' },
  };
  await expectPostRefusals(post, bodies, { cookie, signedIn: true });
  // Each route's own answers.
  expect((await post('/users/revoke_session', { session_id: 'not-one-of-mine' }, { cookie })).json.code).toBe(
    'not_found',
  );
  expect((await post('/users/revoke_other_sessions', { current_password: STRONG }, { cookie })).json).toEqual({
    ok: true,
    revoked: 0,
  });
  expect((await post('/users/change_name', { name: 'Grace Hopper' }, { cookie })).json.user.name).toBe('Grace Hopper');
  // Wrong passwords at deletion count as a password change's do: the sixth check is refused.
  for (let i = 0; i < 5; i++)
    expect((await post('/users/delete_account', { current_password: `wrong ${i}` }, { cookie })).status).toBe(422);
  expect((await post('/users/delete_account', { current_password: STRONG }, { cookie })).json.code).toBe(
    'too_many_attempts',
  );
  const other = await signedUp();
  expect((await post('/users/delete_account', { current_password: STRONG }, { cookie: other.cookie })).json).toEqual({
    ok: true,
  });
  // Ending other sessions: wrong passwords count as a password change's do, then the limit on writes.
  const owner = await signedUp();
  expect((await post('/users/login', { email: owner.email, password: STRONG })).status).toBe(200);
  const otherId = (await get('/users/sessions', { cookie: owner.cookie })).json.sessions.find(
    (s: { current: boolean }) => !s.current,
  ).id;
  for (let i = 0; i < 5; i++)
    expect(
      (await post('/users/revoke_other_sessions', { current_password: `wrong ${i}` }, { cookie: owner.cookie })).status,
    ).toBe(422);
  expect(
    (await post('/users/revoke_other_sessions', { current_password: STRONG }, { cookie: owner.cookie })).json.code,
  ).toBe('too_many_attempts');
  expect(
    (await post('/users/revoke_session', { session_id: otherId, current_password: STRONG }, { cookie: owner.cookie }))
      .json.code,
  ).toBe('too_many_attempts');
  let writes = 0;
  while ((await post('/users/change_name', { name: 'Flood' }, { cookie: owner.cookie })).status === 200)
    expect(++writes).toBeLessThan(100);
  for (const [url, fields] of [
    ['/users/change_name', { name: 'Flood' }],
    ['/users/revoke_session', { session_id: otherId, current_password: STRONG }],
    ['/users/revoke_other_sessions', { current_password: STRONG }],
  ] as const) {
    expect((await post(url, fields, { cookie: owner.cookie })).json.code).toBe('rate_limited');
  }
  const mine = (await get('/users/sessions', { cookie })).json.sessions[0].id;
  expect((await post('/users/revoke_session', { session_id: mine }, { cookie })).json).toEqual({
    ok: true,
    signedOut: true,
  });
}
