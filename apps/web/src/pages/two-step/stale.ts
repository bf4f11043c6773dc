import { describeFailure } from '../../failure';
import { useI18n } from '../../i18n';
import { problemOf } from '../../trpc';

/** A refusal that says the page shows an old state (the app or two-step sign-in was turned on or off elsewhere). */
export const isStale = (error: unknown) => {
  const code = problemOf(error)?.code;
  return code === 'two_step_on' || code === 'two_step_off' || code === 'totp_off';
};

/** Sends a change; a refusal that says the page is out of date goes to the page, the rest to the form. */
export function useStaleAware(onStale: (text: string) => void) {
  const { locale } = useI18n();
  return async <T>(send: () => Promise<T>): Promise<T | null> => {
    try {
      return await send();
    } catch (error) {
      if (!isStale(error)) throw error;
      onStale(describeFailure(error, locale).message ?? '');
      return null;
    }
  };
}
