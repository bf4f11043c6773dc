import type { PasswordContext } from '@accounts/validators';
import type { Form } from '../forms/useForm';
import type { NewPasswordRule } from '../forms/useNewPassword';
import { PasswordField } from './PasswordField';
import { StrengthMeter, strengthLevelId } from './StrengthMeter';

interface NewPasswordFieldsProps<F extends string> {
  form: Form<F>;
  /** The new password's field and its confirmation's. */
  names: readonly [password: F, confirmation: F];
  labels: Record<F, string>;
  rule: NewPasswordRule;
  /** What the meter judges against, when the form itself asks for the name and email (registration). */
  context?: PasswordContext;
}

/** A new password with its strength meter (the input's description), then its confirmation. */
export function NewPasswordFields<F extends string>({
  form,
  names: [password, confirmation],
  labels,
  rule,
  context = rule.context,
}: NewPasswordFieldsProps<F>) {
  // Named after the field: "password-checks", "new-password-checks".
  const checksId = `${password.replace(/_/g, '-')}-checks`;
  return (
    <>
      <PasswordField
        form={form}
        name={password}
        label={labels[password]}
        autoComplete="new-password"
        describedBy={[strengthLevelId(checksId), checksId]}
      >
        <StrengthMeter
          id={checksId}
          password={form.values[password]}
          policy={rule.policy}
          context={context}
          estimator={rule.estimator}
        />
      </PasswordField>
      <PasswordField form={form} name={confirmation} label={labels[confirmation]} autoComplete="new-password" />
    </>
  );
}
