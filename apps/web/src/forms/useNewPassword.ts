import type { PasswordContext, PasswordEstimator, PasswordPolicy } from '@accounts/validators';
import { useMemo } from 'react';
import { useRealmSettings } from '../session';
import { usePasswordEstimator } from './usePasswordEstimator';

/** What a new password is judged by, in the browser as on the server. */
export interface NewPasswordRule {
  policy: PasswordPolicy;
  /** The words it must not be built from: the person's name and email, the realm, the product. */
  context: PasswordContext;
  /** The server's estimator; null while it loads. */
  estimator: PasswordEstimator | null;
}

/**
 * The realm's rule for a new password, for the form's schema and its strength meter alike.
 * Stable between renders while nothing changes, so a schema built from it is built once.
 */
export function useNewPassword({ name, email }: { name?: string; email?: string } = {}): NewPasswordRule {
  const { realm, passwordPolicy, productName } = useRealmSettings();
  const policy = useMemo(() => ({ minLength: passwordPolicy.minLength }), [passwordPolicy.minLength]);
  const context = useMemo(
    () => ({ name, email, realm: realm.slug, realmName: realm.name, product: productName }),
    [name, email, realm.slug, realm.name, productName],
  );
  const estimator = usePasswordEstimator();
  return useMemo(() => ({ policy, context, estimator }), [policy, context, estimator]);
}
