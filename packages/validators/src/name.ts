import type { MessageCode } from './messages.js';

// Display names follow the PRECIS Nickname profile (RFC 8266) where it matters for showing a name
// to people: spaces mapped and collapsed, NFKC, and no characters that are invisible or that
// reorder the text around them. Length is counted in what a reader sees: grapheme clusters.

export const NAME_MAX_LENGTH = 150;
/** A hard cap in code points, since one cluster (an emoji joined to emoji) has no length limit. */
export const NAME_MAX_CODE_POINTS = NAME_MAX_LENGTH * 4;
/**
 * Combining marks allowed in a row. Real text needs few (Vietnamese 2, Hebrew with points and
 * cantillation 4, Tibetan stacks up to 4); stacks beyond that only draw over neighbouring lines.
 */
export const NAME_MAX_MARK_RUN = 5;

/**
 * Never allowed: controls, private use, unassigned code points, line and paragraph separators,
 * bidirectional controls (they reorder what follows: "Trojan Source"), and default-ignorable code
 * points (zero-width space, Hangul fillers, soft hyphen, tags) except the joiners and variation
 * selectors that emoji and some scripts need; those are allowed only after a visible character.
 */
const DISALLOWED =
  // eslint-disable-next-line no-misleading-character-class -- the class lists single code points (joiners, variation selectors), not a sequence to match
  /[\p{Cc}\p{Co}\p{Cn}\p{Bidi_Control}\u2028\u2029]|(?![\u200C\u200D\uFE00-\uFE0F\u{E0100}-\u{E01EF}])\p{Default_Ignorable_Code_Point}/u;
/** What a grapheme cluster must start with: something visible (a lone space is fine too). */
const VISIBLE_BASE = /^[\p{L}\p{N}\p{P}\p{S}]/u;
const MARK_RUN = new RegExp(`\\p{M}{${NAME_MAX_MARK_RUN + 1}}`, 'u');

let segmenter: Intl.Segmenter | undefined;
const graphemes = (s: string) =>
  [...(segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s)].map((g) => g.segment);

/** RFC 8266 §2.2: other spaces become U+0020, NFKC, then leading/trailing spaces go and runs collapse. */
export function normalizeName(raw: string): string {
  return raw
    .replace(/\p{Zs}/gu, ' ')
    .normalize('NFKC')
    .replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '')
    .replace(/ {2,}/g, ' ');
}

/** The first rule a (normalised, non-empty) name breaks, or null. */
export function nameProblem(name: string): { code: MessageCode; params?: Record<string, unknown> } | null {
  if (DISALLOWED.test(name)) return { code: 'name_invalid_chars' };
  if ([...name].length > NAME_MAX_CODE_POINTS) return { code: 'name_too_long', params: { max: NAME_MAX_LENGTH } };
  const clusters = graphemes(name);
  if (clusters.length > NAME_MAX_LENGTH) return { code: 'name_too_long', params: { max: NAME_MAX_LENGTH } };
  if (MARK_RUN.test(name)) return { code: 'name_combining_marks', params: { max: NAME_MAX_MARK_RUN } };
  if (clusters.some((g) => g !== ' ' && !VISIBLE_BASE.test(g))) return { code: 'name_invalid_chars' };
  return null;
}
