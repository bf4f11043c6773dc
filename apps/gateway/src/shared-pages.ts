import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/** A page's HTML and its compressed copies, each made the first time a browser asks for it. */
export class PageBody {
  readonly #copies = new Map<Encoding, Buffer>();
  constructor(readonly html: string) {}

  in(encoding: Encoding): Buffer {
    let copy = this.#copies.get(encoding);
    if (!copy) {
      const plain = Buffer.from(this.html);
      // A page is a few KB: compressed at a fast setting (well under a millisecond).
      copy =
        encoding === 'br'
          ? brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
          : encoding === 'gzip'
            ? gzipSync(plain)
            : plain;
      this.#copies.set(encoding, copy);
    }
    return copy;
  }
}

/** What a signed-out page address renders to: the page, or where it sends the person. */
export type SharedPage = { body: PageBody } | { redirect: string };

/** Enough for every page of many realms in three languages, with room for odd queries. */
const MAX_ENTRIES = 2000;
/** How long a realm's new name or settings may take to show on its signed-out pages. */
const TTL_MS = 60_000;

/**
 * Signed-out pages, which are the same for everyone asking for the same address in the same realm
 * and language with this build: rendered once a minute at most instead of on every request. Never
 * a page rendered for a session, with a state handed over, for a form's answer or with a token.
 */
export class SharedPages {
  readonly #entries = new Map<string, { page: SharedPage; until: number }>();
  /** Renders under way: a page asked for by many at once (a new minute, a new start) is rendered once. */
  readonly #rendering = new Map<string, Promise<SharedPage | null>>();

  get(key: string): SharedPage | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.until > performance.now()) return entry.page;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * The page `render` makes for `key`, kept; while it renders, everyone else asking for `key` waits
   * for the same render rather than starting their own. Null (and nothing kept): not rendered.
   */
  render(key: string, render: () => Promise<SharedPage | null>): Promise<SharedPage | null> {
    let pending = this.#rendering.get(key);
    if (!pending) {
      pending = render()
        .then((page) => {
          if (page) this.set(key, page);
          return page;
        })
        .finally(() => this.#rendering.delete(key));
      this.#rendering.set(key, pending);
    }
    return pending;
  }

  set(key: string, page: SharedPage) {
    this.#entries.delete(key);
    // The oldest entry goes first (a Map keeps insertion order).
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { page, until: performance.now() + TTL_MS });
  }
}
