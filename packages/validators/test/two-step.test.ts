import { describe, expect, it } from 'vitest';
import {
  disableTotpSchema,
  enableTotpSchema,
  normalizeRecoveryCode,
  regenerateRecoveryCodesSchema,
  secondStepSchema,
} from '../src/two-step.js';

describe('second-step codes', () => {
  it('reads six digits as an app code, spaces allowed', () => {
    expect(secondStepSchema.parse({ code: '123 456' }).code).toEqual({ kind: 'totp', code: '123456' });
    expect(enableTotpSchema.parse({ code: ' 654321 ', current_password: 'x' }).code).toBe('654321');
  });

  it('reads a recovery code in any case, with or without its dash, with o/i/l read as digits', () => {
    expect(normalizeRecoveryCode('ABCDE-FGH0K')).toBe('abcdefgh0k');
    expect(normalizeRecoveryCode('abcde fghok')).toBe('abcdefgh0k');
    expect(normalizeRecoveryCode('abcdeIfghL')).toBe('abcde1fgh1');
    expect(disableTotpSchema.parse({ current_password: 'x', code: 'abcde-fgh0k' }).code).toEqual({
      kind: 'recovery',
      code: 'abcdefgh0k',
    });
  });

  it('refuses what is neither, with a field code', () => {
    for (const code of ['12345', '1234567', 'abcde-fghu0', 'abcd-efgh', '']) {
      const r = secondStepSchema.safeParse({ code });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.message).toBe(code === '' ? 'required' : 'second_step_code_format');
    }
    const app = enableTotpSchema.safeParse({ code: 'abcde-fgh0k', current_password: 'x' });
    expect(app.error!.issues[0]!.message).toBe('totp_code_format');
    expect(secondStepSchema.safeParse({}).error!.issues[0]!.message).toBe('required');
  });

  it('takes a second factor where binding one asks for it: any code for new codes, a recovery code beside the app', () => {
    expect(regenerateRecoveryCodesSchema.parse({ current_password: 'x' }).code).toBeUndefined();
    expect(regenerateRecoveryCodesSchema.parse({ current_password: 'x', code: '123456' }).code).toEqual({
      kind: 'totp',
      code: '123456',
    });
    expect(
      enableTotpSchema.parse({ code: '123456', current_password: 'x', recovery_code: 'ABCDE-FGH0K' }).recovery_code,
    ).toEqual({ kind: 'recovery', code: 'abcdefgh0k' });
    for (const [recovery_code, message] of [
      ['123456', 'recovery_code_format'],
      ['abcde-fghu0', 'recovery_code_format'],
      ['', 'required'],
    ]) {
      const r = enableTotpSchema.safeParse({ code: '123456', current_password: 'x', recovery_code });
      expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['recovery_code', message]]);
    }
  });
});
