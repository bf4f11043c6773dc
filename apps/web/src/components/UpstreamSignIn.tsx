import { message } from '@accounts/validators';
import { problemCodeMessage } from '../failure';
import type { SubmitReport } from '../forms/useForm';
import { useI18n } from '../i18n';
import { useLocation } from '../router';
import { trpc } from '../trpc';

/** "Continue with …" for each provider of the realm, returning to `next` after; nothing when it has none. */
export function UpstreamProviders({ next }: { next: string }) {
  const { t } = useI18n();
  const providers = trpc.upstream.providers.useQuery(undefined).data?.providers ?? [];
  if (providers.length === 0) return null;
  const query = next === '/account' ? '' : `?next=${encodeURIComponent(next)}`;
  return (
    <ul className="upstream-providers">
      {providers.map((provider) => (
        <li key={provider.id}>
          <a className="button-link" href={`/users/oauth/${encodeURIComponent(provider.id)}/start${query}`}>
            {t('continueWith', { provider: provider.name })}
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * The form's report, or before any submit the refusal the address names (`?problem=`: a sign-in
 * at a provider that did not work), for the page's error summary.
 */
export function useAddressedReport(report: SubmitReport): SubmitReport {
  const { locale } = useI18n();
  const addressed = problemCodeMessage(useLocation().search, locale);
  if (!addressed || report.key > 0 || report.message !== null || report.entries.length > 0) return report;
  return { ...report, message: addressed };
}

/** An identity at a provider waits to be linked (`?link=pending`): the person signs in to the account first. */
export function LinkPendingNotice() {
  const { locale } = useI18n();
  return (
    <div className="notice link-pending" role="status">
      <p>{message('upstream_link_required', locale)}</p>
    </div>
  );
}
