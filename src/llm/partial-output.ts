/**
 * The deliverable so far, in a reply still being written (streamed calls:
 * stream-call.ts). Execute and roll-up replies are `{"output": "<Markdown>"}`,
 * bare or in a ```json fence (text mode), or plain Markdown from a model that
 * ignored the format; a person watching wants the Markdown, not its JSON
 * escapes. Display only: the finished reply is judged whole (run-task.ts).
 */

/** Where the output string's text begins: after `"output"`, the colon and the opening quote. */
const OUTPUT_KEY = /"output"\s*:\s*"/

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

/** Decodes a JSON string's body from `from` up to its closing quote or the end of what came. */
function decodeString(text: string, from: number): string {
  let out = ''
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!
    if (ch === '"') break
    if (ch !== '\\') {
      out += ch
      continue
    }
    const next = text[i + 1]
    if (next === undefined) break // the escape is cut: wait for the rest
    if (next === 'u') {
      const hex = text.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break
      out += String.fromCharCode(parseInt(hex, 16))
      i += 5
    } else {
      out += ESCAPES[next] ?? next
      i += 1
    }
  }
  return out
}

export function partialOutput(raw: string): string {
  const key = OUTPUT_KEY.exec(raw)
  if (key) return decodeString(raw, key.index + key[0].length)
  const start = raw.trimStart()
  // JSON whose output has not begun yet (or a fence around it): nothing to show so far
  if (start.startsWith('{') || raw.includes('```json')) return ''
  return raw
}
