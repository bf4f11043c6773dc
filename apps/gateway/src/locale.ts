import { DEFAULT_LOCALE, LOCALES, type Locale } from '@accounts/validators';
import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/** The response language from Accept-Language: en, de or fr, English when nothing matches. */
export const localeOf = (req: FastifyRequest): Locale => localeOfHeader(req.headers['accept-language']);

/** The same from an Accept-Language value (a request fastify does not answer itself). */
export function localeOfHeader(header: string | undefined): Locale {
  if (!header || header.length > 512) return DEFAULT_LOCALE;
  return (
    (new Negotiator({ headers: { 'accept-language': header } }).language([...LOCALES]) as Locale | undefined) ??
    DEFAULT_LOCALE
  );
}
