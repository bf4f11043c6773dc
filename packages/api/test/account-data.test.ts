import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { eq, sql } from 'drizzle-orm';
import { accountEvents, mailSends, sessions, users } from '@accounts/db';
import { parseOtpauth, STRONG, STRONG2, testDrivers, totpCode, uniqueEmail } from '@accounts/testing';
import { describe, expect, it } from 'vitest';
import { exportJsonSchema } from '../src/account/export-json-schema.js';
import { recipientKey } from '../src/mail/outbox.js';
import { mailCaller, mailsTo, signUp } from './email-harness.js';
import { problemOf, useHarness } from './harness.js';

// A person's own account: moving it to another address, and a copy of everything held about it.
describe.each(testDrivers())('change of address and copy of data on %s', (driver) => {
  const h = useHarness(driver, { failureWindowMs: 60_000 });
  const eventsOf = async (userId: string) =>
    (await h.db.db.select().from(accountEvents).where(eq(accountEvents.userId, userId))).map((e) => e.type);
  const confirmed = async () => {
    const account = await signUp(h);
    await h.db.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, account.user.id));
    return { ...account, owner: mailCaller(h, { token: account.token, device: account.device }) };
  };
  const linkTo = async (address: string) => {
    const [mail] = await mailsTo(h.db.db, address, 'confirm_email_change');
    return new URL((mail!.payload as { link: string }).link).searchParams.get('token')!;
  };

  it('moves the account once the new address confirms; until then nothing changes', async () => {
    const { email, owner, user, token } = await confirmed();
    const other = mailCaller(h);
    await other.account.signIn({ email, password: STRONG });
    const next = uniqueEmail('moved');
    expect(
      await problemOf(owner.emailChange.request({ new_email: next, current_password: 'not my password' })),
    ).toMatchObject({ status: 422, fields: { current_password: 'password_incorrect' } });
    expect(
      await problemOf(owner.emailChange.request({ new_email: email.toUpperCase(), current_password: STRONG })),
    ).toMatchObject({ status: 422, fields: { new_email: 'email_unchanged' } });
    await owner.emailChange.request({ new_email: ` ${next.toUpperCase()} `, current_password: STRONG });
    expect((await owner.emailChange.pending()).pending?.newEmail).toBe(next);
    expect(await mailsTo(h.db.db, email, 'email_change_requested')).toHaveLength(1);
    const link = await linkTo(next);
    // Nothing changed yet: the old address signs in, the new one does not.
    await mailCaller(h).account.signIn({ email, password: STRONG });
    expect(await problemOf(mailCaller(h).account.signIn({ email: next, password: STRONG }))).toMatchObject({
      status: 422,
    });
    expect(await mailCaller(h).emailChange.link({ token: link })).toMatchObject({ newEmail: next });

    const result = await mailCaller(h, { token }).emailChange.confirm({ token: link });
    expect(result).toEqual({ ok: true, email: next });
    const [row] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ email: next });
    expect(row!.emailVerifiedAt).toBeInstanceOf(Date);
    // The caller's own session stays; every other ended.
    const left = await h.db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(left).toHaveLength(1);
    expect((await owner.account.me()).user.email).toBe(next);
    await mailCaller(h).account.signIn({ email: next, password: STRONG });
    expect(await problemOf(mailCaller(h).account.signIn({ email, password: STRONG }))).toMatchObject({ status: 422 });
    const [notice] = await mailsTo(h.db.db, email, 'email_changed');
    expect((notice!.payload as { newEmail: string }).newEmail).toMatch(/^m\*\*\*@/);
    expect(await eventsOf(user.id)).toEqual(expect.arrayContaining(['email_change_requested', 'email_changed']));
    // Used once.
    expect(await problemOf(mailCaller(h).emailChange.confirm({ token: link }))).toMatchObject({
      status: 400,
      code: 'email_change_token_invalid',
    });
  });

  it('answers alike for an address another account has, and tells that address instead', async () => {
    const a = await confirmed();
    const b = await signUp(h);
    await a.owner.emailChange.request({ new_email: b.email, current_password: STRONG });
    expect(await mailsTo(h.db.db, b.email, 'confirm_email_change')).toHaveLength(0);
    expect(await mailsTo(h.db.db, b.email, 'email_change_attempt')).toHaveLength(1);
    // Pending alike, so the account cannot learn from it whether the address is taken.
    expect((await a.owner.emailChange.pending()).pending?.newEmail).toBe(b.email);
    expect((await a.owner.account.me()).user.email).toBe(a.email);
  });

  it('a copy of the data tells no more than change_email: a change onto a taken address shows as one onto a free one', async () => {
    const taken = await signUp(h);
    const copyAfterChangeTo = async (newEmail: string) => {
      const a = await confirmed();
      await a.owner.emailChange.request({ new_email: newEmail, current_password: STRONG });
      const copy = await a.owner.accountData.export({});
      // What differs between any two accounts: ids, times, the addresses themselves.
      const text = JSON.stringify(copy)
        .replaceAll(a.email, 'OWNER')
        .replaceAll(newEmail, 'NEW')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID');
      return JSON.parse(text) as unknown;
    };
    const free = await copyAfterChangeTo(uniqueEmail('free'));
    const onTaken = await copyAfterChangeTo(taken.email);
    expect(onTaken).toEqual(free);
    expect(free).toMatchObject({ pendingEmailChange: { newEmail: 'NEW' } });
  });

  it('over the cap of the new address, a change onto a taken one is pending no more than onto a free one', async () => {
    const taken = await signUp(h);
    const free = uniqueEmail('full');
    // Each address had its 10 mails caused by others in the window.
    for (const address of [taken.email, free])
      await h.db.db
        .insert(mailSends)
        .values(Array.from({ length: 10 }, () => ({ recipientKey: recipientKey(address), kind: 'caused' })));
    const pendingAfterChangeTo = async (newEmail: string) => {
      const a = await confirmed();
      await a.owner.emailChange.request({ new_email: newEmail, current_password: STRONG });
      return (await a.owner.emailChange.pending()).pending;
    };
    expect(await pendingAfterChangeTo(free)).toBeNull();
    expect(await pendingAfterChangeTo(taken.email)).toBeNull();
    expect(await mailsTo(h.db.db, taken.email, 'email_change_attempt')).toEqual([]);
  });

  it('fails cleanly when another account took the address before the link was used', async () => {
    const a = await confirmed();
    const next = uniqueEmail('race');
    await a.owner.emailChange.request({ new_email: next, current_password: STRONG });
    const link = await linkTo(next);
    await mailCaller(h).account.register({ name: 'Fast', email: next, password: STRONG2, password2: STRONG2 });
    expect(await problemOf(mailCaller(h).emailChange.confirm({ token: link }))).toMatchObject({
      status: 409,
      code: 'email_taken',
    });
    expect((await a.owner.account.me()).user.email).toBe(a.email);
  });

  it('a cancelled change leaves its link dead; a link works only in its realm', async () => {
    const a = await confirmed();
    const next = uniqueEmail('cancel');
    await a.owner.emailChange.request({ new_email: next, current_password: STRONG });
    const link = await linkTo(next);
    await h.realm('acme');
    expect(await problemOf(mailCaller(h, { realm: 'acme' }).emailChange.confirm({ token: link }))).toMatchObject({
      code: 'email_change_token_invalid',
    });
    await a.owner.emailChange.cancel();
    expect((await a.owner.emailChange.pending()).pending).toBeNull();
    expect(await problemOf(mailCaller(h).emailChange.confirm({ token: link }))).toMatchObject({
      code: 'email_change_token_invalid',
    });
    expect(await eventsOf(a.user.id)).toContain('email_change_cancelled');
  });

  it('is limited per client address like a password check', async () => {
    const a = await confirmed();
    const limited = mailCaller(h, { token: a.token, limit: (action) => (action === 'passwordCheck' ? 30 : null) });
    expect(
      await problemOf(limited.emailChange.request({ new_email: uniqueEmail(), current_password: STRONG })),
    ).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('hands over a copy of everything held about the account, nothing secret, valid against the documented schema', async () => {
    const { owner, user, email, token, device } = await confirmed();
    const { uri } = await owner.twoStep.setupTotp();
    const { recoveryCodes } = await owner.twoStep.enableTotp({
      code: totpCode(parseOtpauth(uri).secret),
      current_password: STRONG,
    });
    const stranger = await signUp(h);
    const copy = await owner.accountData.export({});
    expect(copy.account).toMatchObject({ id: user.id, email, twoStep: true });
    expect(copy.sessions.filter((s) => s.current)).toHaveLength(1);
    expect(copy.events.map((e) => e.type)).toEqual(expect.arrayContaining(['registered', 'two_step_enabled']));
    expect(copy.mails.map((m) => m.kind)).toContain('verify_email');
    expect(copy.secondFactors.authenticatorApp?.enabledAt).toBeInstanceOf(Date);
    expect(copy.secondFactors.recoveryCodes.left).toBe(10);
    const text = JSON.stringify(copy);
    const [row] = await h.db.db.select().from(users).where(eq(users.id, user.id));
    for (const secret of [row!.passwordHash, token, device, ...recoveryCodes, parseOtpauth(uri).secret, stranger.email])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/"(token|link|payload|secret|digest|passwordHash|tokenHash)"/);
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(new URL('../../../docs/account-export.schema.json', import.meta.url), 'utf8')) as object,
    );
    expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
    expect(await eventsOf(user.id)).toContain('data_exported');
    expect(await mailsTo(h.db.db, email, 'data_exported')).toHaveLength(1);
  });

  it('asks for the password when the session has not proved it in the last five minutes', async () => {
    const { owner, user } = await confirmed();
    await h.db.db
      .update(sessions)
      .set({ passwordCheckedAt: sql`now() - interval '6 minutes'` })
      .where(eq(sessions.userId, user.id));
    expect(await problemOf(owner.accountData.export({}))).toMatchObject({
      status: 422,
      fields: { current_password: 'password_recheck_required' },
    });
    expect(await problemOf(owner.accountData.export({ current_password: 'nope nope' }))).toMatchObject({
      fields: { current_password: 'password_incorrect' },
    });
    await owner.accountData.export({ current_password: STRONG });
    await owner.accountData.export({});
  });

  it('the documented schema is the one the export is checked against', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../../docs/account-export.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(committed).toEqual(exportJsonSchema());
  });
});
