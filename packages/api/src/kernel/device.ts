// The declaration must reach every program that compiles this file (the gateway's too, which takes
// the package's source): a file declaring an untyped package's module can only be referenced.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- see above; an import cannot load it
/// <reference path="./ua-parser-js.d.ts" />
import { DEFAULT_LOCALE, type Locale } from '@accounts/validators';
import ipaddr from 'ipaddr.js';
import UAParser from 'ua-parser-js';

// What a person is shown about where a session or event came from: the browser and system the
// User-Agent names, and the client address with its host part hidden.

/** User-Agents are kept at most this long (real ones are under 300 characters; the rest is noise). */
export const USER_AGENT_MAX_LENGTH = 512;

/** A User-Agent as stored: trimmed, control characters removed, cut to a sane length; null when empty. */
export function keptUserAgent(ua: string | null | undefined): string | null {
  if (!ua) return null;
  const clean = ua
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, USER_AGENT_MAX_LENGTH);
  return clean || null;
}

/** A version as systems write it (10, 17.5, 10.15.7); the parser passes on whatever text follows a name. */
const VERSION = /^\d{1,6}(?:\.\d{1,6}){0,3}$/;

/** HTTP clients that name themselves in the first product token, as they spell themselves. */
const PROGRAMS = [
  'curl',
  'Wget',
  'HTTPie',
  'python-requests',
  'python-httpx',
  'aiohttp',
  'Go-http-client',
  'node-fetch',
  'undici',
  'axios',
  'okhttp',
  'PostmanRuntime',
  'insomnia',
  'Java',
  'Ruby',
  'Dart',
  'libwww-perl',
  'Apache-HttpClient',
];

/** The word between a browser and its system, as each language says it: "Firefox 133 unter Windows 10". */
const ON: Record<Locale, string> = { en: 'on', de: 'unter', fr: 'sous' };

/**
 * "Firefox 128 on Windows 10", "Safari on iOS 17.5", "curl 8.5"; null when nothing is recognised.
 * Names come from the parser's own list and versions are digits; the word between them is the
 * `locale`'s ("Firefox 128 unter Windows 10", "Firefox 128 sous Windows 10"). `program: false`
 * leaves out the name a program gives itself ("curl 8.5"), which is the header's text: mails use
 * that, since whoever signs in writes the header.
 */
export function describeDevice(
  ua: string | null,
  { program = true, locale = DEFAULT_LOCALE }: { program?: boolean; locale?: Locale } = {},
): string | null {
  if (!ua) return null;
  let browser: string | undefined;
  let os: string | undefined;
  try {
    const r = UAParser(ua);
    browser =
      [r.browser.name, r.browser.major && VERSION.test(r.browser.major) ? r.browser.major : undefined]
        .filter(Boolean)
        .join(' ') || undefined;
    os =
      [r.os.name, r.os.version && VERSION.test(r.os.version) ? r.os.version : undefined].filter(Boolean).join(' ') ||
      undefined;
    if (!browser && !os && program) {
      // Programs: "curl/8.5.0", "python-requests/2.31" name themselves in the first product token;
      // only names on our own list are shown, so a client cannot write its own words on the
      // owner's activity page.
      const m = /^([A-Za-z][\w.-]{0,40})\/(\d{1,6}(?:\.\d{1,6})?)/.exec(ua);
      const name = m && PROGRAMS.find((p) => p.toLowerCase() === m[1]!.toLowerCase());
      if (name) browser = `${name} ${m[2]}`;
    }
  } catch {
    return null;
  }
  if (browser && os) return `${browser} ${ON[locale]} ${os}`;
  return browser ?? os ?? null;
}

/**
 * An address as shown to its owner: IPv4 with its last byte hidden ("203.0.113.x"), IPv6 as its
 * /48 ("2001:db8:85a3::/48"), the usual site prefix. Enough to tell home from abroad, not a host.
 */
export function displayAddress(ip: string | null): string | null {
  if (!ip) return null;
  try {
    let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.kind() === 'ipv4') return `${addr.toString().split('.').slice(0, 3).join('.')}.x`;
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 3);
    return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0, 0]).toString()}/48`;
  } catch {
    return null;
  }
}

/**
 * The address a client is counted by: IPv6 grouped by /64, the block one subscriber usually
 * gets, so walking through the addresses of one network does not buy more guesses.
 */
export function addressGroup(ip: string | null): string {
  if (!ip) return 'unknown';
  try {
    let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.kind() === 'ipv4') return addr.toString();
    const prefix = (addr as ipaddr.IPv6).parts.slice(0, 4);
    return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
  } catch {
    return ip;
  }
}

/** The key the lockout and the refusal records count a client known only by its address under. */
export const addressKey = (ip: string | null) => `a:${addressGroup(ip)}`;
