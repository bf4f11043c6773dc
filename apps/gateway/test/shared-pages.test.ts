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
});
