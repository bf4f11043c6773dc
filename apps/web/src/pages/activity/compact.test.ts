import { describe, expect, it } from 'vitest';
import { compactActivity, type ActivityEvent } from './compact';

const event = (id: string, at: string, type: string, more: Partial<ActivityEvent> = {}): ActivityEvent => ({
  id,
  at,
  type,
  device: 'Firefox 128 on Windows 10',
  address: '203.0.113.x',
  failed: false,
  app: null,
  ...more,
});
const utcDay = (at: Date | string) => new Date(at).toISOString().slice(0, 10);
/** Each day's rows as [type, how many events, tone, new device, asks "wasn't you?"]. */
const shape = (events: ActivityEvent[]) =>
  compactActivity(events, utcDay).map(({ day, rows }) => [
    day,
    rows.map((r) => [r.type, r.events.length, r.tone, r.newDevice, r.askIfYou]),
  ]);

describe('the activity list as people read it', () => {
  it("folds a sign-in's first step into the sign-in it led to, the nearest before it from the same device", () => {
    const events = [
      event('6', '2026-03-10T10:07:00Z', 'signed_in'),
      event('5', '2026-03-10T10:06:00Z', 'sign_in_second_step'),
      event('4', '2026-03-10T10:05:00Z', 'sign_in_second_step'),
      // From another device: its own first step, left alone.
      event('3', '2026-03-10T10:04:00Z', 'sign_in_second_step', { device: 'curl 8.5' }),
      event('2', '2026-03-10T09:00:00Z', 'signed_in'),
      // Longer ago than a pending sign-in lives: not the first step of that one.
      event('1', '2026-03-10T08:50:00Z', 'sign_in_second_step'),
    ];
    const [day] = compactActivity(events, utcDay);
    const rows = day!.rows;
    expect(rows.map((r) => [r.type, r.events.map((e) => e.id)])).toEqual([
      ['signed_in', ['6', '2']],
      // 10:05 had no sign-in of its own: 10:06 was completed by 10:07.
      ['sign_in_second_step', ['4', '1']],
      ['sign_in_second_step', ['3']],
    ]);
    // The right password with no sign-in after it asks whether it was the person.
    expect(rows.map((r) => r.askIfYou)).toEqual([false, true, true]);
  });

  it('makes one row of a repeat in a day (same kind, device, address and app), never across days', () => {
    expect(
      shape([
        event('7', '2026-03-10T12:00:00Z', 'app_signed_in', { app: 'Wiki' }),
        event('6', '2026-03-10T11:00:00Z', 'app_signed_in', { app: 'Notes' }),
        event('5', '2026-03-10T10:00:00Z', 'app_signed_in', { app: 'Wiki' }),
        event('4', '2026-03-10T09:00:00Z', 'signed_in', { address: '198.51.100.x' }),
        event('3', '2026-03-10T08:00:00Z', 'signed_in'),
        event('2', '2026-03-10T07:00:00Z', 'signed_in'),
        event('1', '2026-03-09T23:00:00Z', 'signed_in'),
      ]),
    ).toEqual([
      [
        '2026-03-10',
        [
          ['app_signed_in', 2, 'plain', false, false],
          ['app_signed_in', 1, 'plain', false, false],
          ['signed_in', 1, 'plain', false, false],
          ['signed_in', 2, 'plain', false, false],
        ],
      ],
      ['2026-03-09', [['signed_in', 1, 'plain', false, false]]],
    ]);
  });

  it('marks failures and new devices, and asks about them; refused requests and warnings are no failures', () => {
    expect(
      shape([
        event('6', '2026-03-10T12:00:00Z', 'sign_in_failed', { failed: true }),
        event('5', '2026-03-10T11:59:00Z', 'sign_in_failed', { failed: true }),
        event('4', '2026-03-10T11:00:00Z', 'rate_limited', { failed: true }),
        event('3', '2026-03-10T10:00:00Z', 'cross_origin_refused', { failed: true }),
        event('2', '2026-03-10T09:00:00Z', 'signed_in', { newDevice: true }),
        event('1', '2026-03-10T08:00:00Z', 'passkey_counter_regressed'),
      ]),
    ).toEqual([
      [
        '2026-03-10',
        [
          ['sign_in_failed', 2, 'failure', false, true],
          ['rate_limited', 1, 'plain', false, false],
          ['cross_origin_refused', 1, 'plain', false, false],
          ['signed_in', 1, 'plain', true, true],
          ['passkey_counter_regressed', 1, 'warning', false, false],
        ],
      ],
    ]);
  });
});
