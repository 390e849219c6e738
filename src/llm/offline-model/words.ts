/**
 * Text helpers of the offline placeholder. It has no vocabulary of its
 * own: it quotes and reuses the words it was given, whole.
 */

/** 32-bit FNV-1a: a tiny, well-spread hash for choices that must be the same on every run. */
export function hashString(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A text as one clause: spaces collapsed, no trailing full stop, comma or semicolon. */
export function clause(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;]+$/, '')
}

/** How much of a text a quote holds: enough to recognise it in a sentence. */
const QUOTE_MAX = 200

/** A text in quotes, as written (spaces collapsed): whole when it fits, else cut at a word and marked "…". */
export function quote(text: string, max = QUOTE_MAX): string {
  const whole = text.replace(/\s+/g, ' ').trim()
  if (whole.length <= max) return `“${whole}”`
  return `“${whole.slice(0, max).replace(/\s+\S*$/, '')} …”`
}

/** The lower-case words of a text longer than three letters: the ones that say what it is about. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []).filter(
    (w) => w.length > 3,
  )
}

/** "Head: a, b and c": the parts a text names after a colon (at least two), or null. */
export function colonList(text: string): { head: string; items: string[] } | null {
  const m = /^([^:]{3,}?):\s+(.+)$/.exec(clause(text))
  if (!m) return null
  const parts = m[2]!.split(/\s*,\s*/)
  const last = parts.pop() ?? ''
  const items = [...parts, ...last.split(/\s+and\s+/)]
    .map((item) => item.replace(/^(and|or)\s+/i, '').trim())
    .filter((item) => item.length > 0)
  const distinct = new Set(items.map((item) => item.toLowerCase())).size === items.length
  return items.length >= 2 && distinct ? { head: m[1]!.trim(), items } : null
}

/** "a, b and c" */
export function joinList(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`
}

/** A note's points: its sentences and its comma- or semicolon-separated requests. */
export function points(note: string): string[] {
  return note
    .split(/[.;!?\n]+|,\s+/)
    .map(clause)
    .filter((p) => p.length > 1)
}
