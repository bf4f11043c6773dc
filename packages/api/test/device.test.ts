import { describe, expect, it } from 'vitest';
import { describeDevice, displayAddress, keptUserAgent, USER_AGENT_MAX_LENGTH } from '../src/kernel/device.js';

const FIREFOX_WIN = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';

describe('device descriptions', () => {
  it('names the browser and system', () => {
    expect(describeDevice(FIREFOX_WIN)).toBe('Firefox 128 on Windows 10');
    expect(describeDevice(SAFARI_IOS)).toBe('Mobile Safari 17 on iOS 17.5');
    expect(describeDevice(CHROME_LINUX)).toMatch(/^Chrome.* 131 on Linux/);
    expect(describeDevice('curl/8.5.0')).toBe('curl 8.5');
    expect(describeDevice('python-requests/2.31.0')).toBe('python-requests 2.31');
    expect(describeDevice(null)).toBeNull();
    expect(describeDevice('???')).toBeNull();
  });

  it('joins the browser and the system with the words of the language asked for', () => {
    expect(describeDevice(FIREFOX_WIN, { locale: 'de' })).toBe('Firefox 128 unter Windows 10');
    expect(describeDevice(FIREFOX_WIN, { locale: 'fr' })).toBe('Firefox 128 sous Windows 10');
    expect(describeDevice(SAFARI_IOS, { locale: 'de' })).toBe('Mobile Safari 17 unter iOS 17.5');
    expect(describeDevice(FIREFOX_WIN, { locale: 'en' })).toBe('Firefox 128 on Windows 10');
    // A program's own name has no system to join.
    expect(describeDevice('curl/8.5.0', { locale: 'fr' })).toBe('curl 8.5');
  });

  it("names only programs it knows: a client's own words are never shown as its name", () => {
    expect(describeDevice('Visit-evil.example/1')).toBeNull();
    expect(describeDevice('Call-0800-555-0100/2.0')).toBeNull();
    expect(describeDevice('CURL/8.5.0')).toBe('curl 8.5');
  });

  it('keeps a User-Agent cut to a sane length, without control characters', () => {
    expect(keptUserAgent('x'.repeat(5000))).toHaveLength(USER_AGENT_MAX_LENGTH);
    expect(keptUserAgent(' a\u0000b\n ')).toBe('ab');
    expect(keptUserAgent('')).toBeNull();
    expect(keptUserAgent(undefined)).toBeNull();
  });

  it('hides the host part of an address', () => {
    expect(displayAddress('203.0.113.77')).toBe('203.0.113.x');
    expect(displayAddress('::ffff:198.51.100.9')).toBe('198.51.100.x');
    expect(displayAddress('2001:db8:85a3:1234:5678::1')).toBe('2001:db8:85a3::/48');
    expect(displayAddress('not an address')).toBeNull();
    expect(displayAddress(null)).toBeNull();
  });
});
