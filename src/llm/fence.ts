/**
 * Fences for untrusted text in prompts (issue 43). Goals, subgoals, notes
 * and earlier outputs are other people's and other models' text: they reach
 * a prompt verbatim, never escaped (a model copies `&lt;` into its code), so
 * the tags around them must be ones that text cannot contain. Every tag of a
 * prompt carries one marker that occurs in none of the texts it holds; no
 * text can then open or close a tag, whatever it says.
 *
 * The marker is derived from the texts themselves, not random: the same
 * task gives the same prompt (reproducible runs, comparable call logs).
 */

/** Marker length: 36^6 ≈ 2·10^9 values, about three tokens per tag. */
const MARKER_CHARS = 6
/** Hashes tried before falling back to a marker longer than every text (never needed in practice). */
const MARKER_ATTEMPTS = 16
const BASE36 = 36

/** 32-bit FNV-1a: small and well spread, enough to pick a marker. */
function fnv1a(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function base36(n: number): string {
  return n.toString(BASE36).padStart(MARKER_CHARS, '0').slice(-MARKER_CHARS)
}

/**
 * A marker of lower-case letters and digits that occurs in none of `texts`.
 * Deterministic in `texts`; guaranteed: if every hash is taken, a marker
 * longer than the longest text is returned, which no text can contain.
 */
export function markerFor(texts: readonly string[]): string {
  let h = 0x811c9dc5
  for (const text of texts) h = fnv1a(`${text}\u0000`, h)
  for (let attempt = 0; attempt < MARKER_ATTEMPTS; attempt++) {
    const marker = base36(h)
    if (!texts.some((text) => text.includes(marker))) return marker
    h = fnv1a(`${attempt}`, h)
  }
  const longest = Math.max(0, ...texts.map((text) => text.length))
  return 'z'.repeat(longest + 1)
}
