import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, signedInAs, type Reply } from '../../test/fake-api';
import { renderApp } from '../../test/render-app';

const signedIn = { 'account.me': (): Reply<'account.me'> => signedInAs(ADA) };
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
const APPS = [
  {
    clientId: 'photo-book',
    name: 'Photo Book',
    firstParty: false,
    scopes: ['openid', 'profile', 'email', 'offline_access'] as const,
    grantedAt: ago(86400),
    lastUsedAt: ago(3600),
  },
  {
    clientId: 'wiki',
    name: 'Our Wiki',
    firstParty: true,
    scopes: ['openid'] as const,
    grantedAt: ago(60),
    lastUsedAt: ago(60),
  },
];

describe('the apps with access page', () => {
  it('lists each app with what it may see and when it was last used; Remove access takes it off the list', async () => {
    let list = APPS.map((a) => ({ ...a, scopes: [...a.scopes] }));
    const app = renderApp('/settings/apps', {
      ...signedIn,
      'apps.list': () => ({ data: { apps: list } }),
      'apps.revoke': (input) => {
        const { client_id } = input as { client_id: string };
        if (!list.some((a) => a.clientId === client_id)) return problem(404, 'not_found');
        list = list.filter((a) => a.clientId !== client_id);
        return { data: { ok: true } };
      },
    });
    const items = await screen.findAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).getByRole('heading').textContent).toBe('Photo Book');
    expect(items[0]!.textContent).toContain(
      'It may see: that it is you, your name and language, your email address, stay signed in',
    );
    expect(items[0]!.textContent).toContain('Last used 1 hour ago');
    expect(within(items[1]!).getByRole('heading').textContent).toBe('Our WikiPart of this service');

    await app.user.click(screen.getByRole('button', { name: 'Remove the access of Photo Book' }));
    await screen.findByText('Photo Book no longer has access to your account.');
    expect(app.api.callsTo('apps.revoke').map((c) => c.input)).toEqual([{ client_id: 'photo-book' }]);
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(1));
  });

  it('says when no app has access, in the person’s language', async () => {
    renderApp('/settings/apps', { ...signedIn, 'apps.list': () => ({ data: { apps: [] } }) }, 'de');
    await screen.findByText('Keine App hat Zugriff auf Ihr Konto.');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Apps mit Zugriff');
  });
});
