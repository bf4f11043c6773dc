import { useEffect, useRef } from 'react';
import { useHydrated } from '../hydrated';
import { useSecurityText } from '../i18n/security-strings';
import { saveFile } from '../download';
import { useLocation } from '../router';
import { useProductName, type SignedInUser } from '../session';
import { CopyButton } from './CopyButton';
import { StepLink } from './StepLink';

/**
 * Why new recovery codes were made: two-step sign-in turned on with the app, the app turned on
 * beside passkeys (its codes replace the old ones), new codes asked for, or the account's first
 * passkey.
 */
export type CodesMadeAfter = 'enabled' | 'app-added' | 'regenerated' | 'passkey';

const SAID = {
  enabled: 'codesEnabled',
  'app-added': 'codesAppAdded',
  regenerated: 'codesRegenerated',
  passkey: 'codesPasskey',
} as const;

/**
 * The ten recovery codes, this once: a list to copy or download, a warning that they will not be
 * shown again, and Done. The heading takes focus, so the codes are what is read next. Copying
 * and downloading need scripts (absent without them: the codes are on the page to write down);
 * Done is a link to the page itself, which without scripts shows it as it is now.
 */
export function RecoveryCodes({
  user,
  codes,
  after,
  onDone,
}: {
  user: SignedInUser;
  codes: string[];
  after: CodesMadeAfter;
  onDone: () => void;
}) {
  const s = useSecurityText();
  const product = useProductName();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const hydrated = useHydrated();
  const { path } = useLocation();
  useEffect(() => headingRef.current?.focus(), []);
  const file = [s('codesFileIntro', { account: user.email, product }), '', ...codes, ''].join('\n');
  const download = () => saveFile('recovery-codes.txt', file, 'text/plain;charset=utf-8');
  return (
    <section className="recovery-codes" aria-labelledby="recovery-codes-title">
      <div className="success">
        <p>{s(SAID[after])}</p>
      </div>
      <h2 id="recovery-codes-title" tabIndex={-1} ref={headingRef}>
        {s('codesTitle')}
      </h2>
      <p className="codes-warning">
        <strong>{s('codesWarning')}</strong>
      </p>
      <ol className="codes" aria-label={s('codesListLabel')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      {hydrated && (
        <p className="codes-actions">
          <CopyButton text={codes.join('\n')} label={s('codesCopy')} />
          <button type="button" className="secondary" onClick={download}>
            {s('codesDownload')}
          </button>
        </p>
      )}
      <StepLink href={path} className="primary button-link" onOpen={onDone}>
        {s('codesDone')}
      </StepLink>
    </section>
  );
}
