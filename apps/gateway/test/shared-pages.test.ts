import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageBody, SharedPages } from '../src/shared-pages.js';

describe('shared signed-out pages', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a page a minute, then renders it again', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const pages = new SharedPages();
    pages.set('default en /login', { redirect: '/x' });
    vi.advanceTimersByTime(59_000);
    expect(pages.get('default en /login')).toEqual({ redirect: '/x' });
    vi.advanceTimersByTime(2_000);
    expect(pages.get('default en /login')).toBeUndefined();
  });

  it('keeps at most 2000 pages, the oldest going first', () => {
    const pages = new SharedPages();
    for (let i = 0; i < 2001; i++) pages.set(`k${i}`, { redirect: `/${i}` });
    expect(pages.get('k0')).toBeUndefined();
    expect(pages.get('k1')).toEqual({ redirect: '/1' });
    expect(pages.get('k2000')).toEqual({ redirect: '/2000' });
  });

  it('compresses a page once per encoding, to the same HTML', () => {
    const body = new PageBody('<p>é</p>'.repeat(100));
    expect(body.in('br')).toBe(body.in('br'));
    expect(brotliDecompressSync(body.in('br')).toString()).toBe(body.html);
    expect(gunzipSync(body.in('gzip')).toString()).toBe(body.html);
    expect(body.in('identity').toString()).toBe(body.html);
  });

  it('renders a page asked for by many at once only once, and keeps nothing it could not render', async () => {
    const pages = new SharedPages();
    let renders = 0;
    let finish!: (page: { redirect: string } | null) => void;
    const render = () => {
      renders++;
      return new Promise<{ redirect: string } | null>((resolve) => (finish = resolve));
    };
    const asked = Array.from({ length: 32 }, () => pages.render('default en /login', render));
    expect(renders).toBe(1);
    finish({ redirect: '/x' });
    for (const page of await Promise.all(asked)) expect(page).toEqual({ redirect: '/x' });
    expect(pages.get('default en /login')).toEqual({ redirect: '/x' });

    const failed = [pages.render('default en /register', render), pages.render('default en /register', render)];
    finish(null);
    expect(await Promise.all(failed)).toEqual([null, null]);
    expect(pages.get('default en /register')).toBeUndefined();
    // The next request tries again.
    const again = pages.render('default en /register', render);
    expect(renders).toBe(3);
    finish({ redirect: '/y' });
    expect(await again).toEqual({ redirect: '/y' });
  });
});
