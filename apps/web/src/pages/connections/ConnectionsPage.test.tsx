import { message } from '@accounts/validators';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADA, problem, signedInAs, type Reply } from '../../test/fake-api';
import { renderApp } from '../../test/render-app';
import { pageAt } from '../registry';

const signedIn = { 'account.me': (): Reply<'account.me'> => signedInAs(ADA) };
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();
const GITHUB = {
  provider: 'github',
  providerName: 'GitHub',
  email: 'ada@users.example',
  connectedAt: ago(86400),
  lastUsedAt: ago(3600),
};
const listOf = (connections: (typeof GITHUB)[]): Reply<'connections.list'> => ({
  data: { connections, available: [{ id: 'google', name: 'Google' }], hasPassword: true },
});

describe('the connected accounts page', () => {
  it('is a page of its own, linked from the account page', async () => {
    expect(pageAt('/settings/connections').title).toBe('connectionsTitle');
    renderApp('/account', signedIn);
    const link = await screen.findByRole('link', { name: 'Connected accounts' });
    expect(link.getAttribute('href')).toBe('/settings/connections');
  });

  it('lists each connection with its address and dates; Remove takes it off; Connect is a plain form', async () => {
    let connections = [GITHUB];
    const app = renderApp('/settings/connections', {
      ...signedIn,
      'connections.list': () => listOf(connections),
      'connections.remove': (input) => {
        const { provider } = input as { provider: string };
        connections = connections.filter((c) => c.provider !== provider);
        return { data: { ok: true } };
      },
    });
    const items = await screen.findAllByRole('listitem');
    const github = items.find((item) => item.querySelector('h2'))!;
    expect(within(github).getByRole('heading').textContent).toBe('GitHub');
    expect(github.textContent).toContain('Address it gave: ada@users.example');
    expect(github.textContent).toContain('Last used 1 hour ago');

    const connect = screen.getByRole('button', { name: 'Connect Google' }).closest('form')!;
    expect(connect.getAttribute('method')).toBe('post');
    expect(connect.getAttribute('action')).toBe('/users/connections/connect');
    expect(new FormData(connect).get('provider')).toBe('google');

    const remove = screen.getByRole('button', { name: 'Remove GitHub' }).closest('form')!;
    expect(new FormData(remove).get('_form')).toBe('removeConnection');
    await app.user.click(screen.getByRole('button', { name: 'Remove GitHub' }));
    await screen.findByText('GitHub no longer signs you in to this account.');
    expect(app.api.callsTo('connections.remove').map((c) => c.input)).toEqual([{ provider: 'github' }]);
    await screen.findByText('No account at another provider is connected.');
  });

  it('says why a removal was refused', async () => {
    const app = renderApp('/settings/connections', {
      ...signedIn,
      'connections.list': () => listOf([GITHUB]),
      'connections.remove': () => problem(409, 'connection_last_way_in'),
    });
    await app.user.click(await screen.findByRole('button', { name: 'Remove GitHub' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(message('connection_last_way_in', 'en')));
  });

  it('shows what the address says came back from the provider', async () => {
    renderApp('/settings/connections?notice=connected', { ...signedIn, 'connections.list': () => listOf([GITHUB]) });
    await screen.findByText('The account is connected: you can now sign in with it.');
  });

  it('shows a refusal the address names, in the person’s language', async () => {
    renderApp(
      '/settings/connections?problem=connection_taken',
      { ...signedIn, 'connections.list': () => listOf([]) },
      'de',
    );
    expect((await screen.findByRole('alert')).textContent).toBe(message('connection_taken', 'de'));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Verbundene Konten');
  });
});
