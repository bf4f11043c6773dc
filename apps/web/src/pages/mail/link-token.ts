import { useEffect, useState } from 'react';
import { useLocation } from '../../router';

/**
 * The token of a mailed link, read from the address; once the page is shown, the address is
 * replaced by the page's plain path, so the token is not in the history, in bookmarks, or in the
 * Referer of anything the page loads later (and Referrer-Policy: same-origin keeps it from other
 * sites). Removed after the render commits: a render that is thrown away (while code loads)
 * must not take the token with it.
 */
export function useLinkToken(path: string): string | null {
  const { search } = useLocation();
  const [token] = useState(() => search.get('token'));
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has('token'))
      window.history.replaceState(window.history.state, '', path);
  }, [path]);
  return token;
}
