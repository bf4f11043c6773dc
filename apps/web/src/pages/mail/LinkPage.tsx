import { useEffect, useState, type ReactNode } from 'react';
import { PageHeading } from '../../components/PageHeading';
import { Link, useLocation } from '../../router';
import { useMailText } from './strings';

/**
 * A page a mailed link opens (at `path`): its heading, then what it makes of the link's token.
 * Without a token (the link cut short, the address typed), `noToken` says what to do instead: by
 * default, the way to the account.
 */
export function LinkPage({
  title,
  path,
  noToken,
  children,
}: {
  title: string;
  path: string;
  noToken?: ReactNode;
  children: (token: string) => ReactNode;
}) {
  const m = useMailText();
  const token = useLinkToken(path);
  return (
    <>
      <PageHeading>{title}</PageHeading>
      {token
        ? children(token)
        : (noToken ?? (
            <div className="notice" role="status">
              <p>{m('verifyNoToken')}</p>
              <p>
                <Link to="/account">{m('toAccount')}</Link>
              </p>
            </div>
          ))}
    </>
  );
}

/**
 * The token of a mailed link, read from the address; once the page is shown, the address is
 * replaced by the page's plain path, so the token is not in the history, in bookmarks, or in the
 * Referer of anything the page loads later (and Referrer-Policy: same-origin keeps it from other
 * sites). Removed after the render commits: a render that is thrown away (while code loads)
 * must not take the token with it.
 */
function useLinkToken(path: string): string | null {
  const { search } = useLocation();
  const [token] = useState(() => search.get('token'));
  useEffect(() => {
    if (new URLSearchParams(window.location.search).has('token'))
      window.history.replaceState(window.history.state, '', path);
  }, [path]);
  return token;
}
