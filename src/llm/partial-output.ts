/**
 * The deliverable so far, in a reply still being written (streamed calls:
 * stream-call.ts). Execute and roll-up replies are `{"output": "<Markdown>"}`,
 * bare or in a ```json fence (text mode), or plain Markdown from a model that
 * ignored the format; a person watching wants the Markdown, not its JSON
 * escapes, nor the <think> block a local reasoning model writes first.
 * Display only: the finished reply is judged whole (run-task.ts).
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

/** Reasoning tags a local model writes into its reply (reply-repair.ts sets them aside likewise). */
const THINK_BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi
const THINK_OPEN = /<(?:think|thinking|reasoning)>/i
const THINK_CLOSE = /<\/(?:think|thinking|reasoning)>/i
/** The start of a tag still arriving at the end ("<thi"): held back until it is whole. */
const TAG_ARRIVING = /<\/?[a-z]{0,9}$/i

/** The reply without the reasoning written so far: a person watches the answer, not the thinking. */
function withoutThinking(raw: string): string {
  let text = raw
  const close = THINK_CLOSE.exec(text)
  const open = THINK_OPEN.exec(text)
  // reasoning whose opening tag was in the prompt (the chat template's): all of it up to the close
  if (close && (!open || open.index > close.index)) text = text.slice(close.index + close[0].length)
  text = text.replace(THINK_BLOCK, '')
  const unclosed = THINK_OPEN.exec(text)
  if (unclosed) text = text.slice(0, unclosed.index)
  const arriving = TAG_ARRIVING.exec(text)
  if (arriving) text = text.slice(0, arriving.index)
  return text.trimStart()
}

export function partialOutput(reply: string): string {
  const raw = withoutThinking(reply)
  const key = OUTPUT_KEY.exec(raw)
  if (key) return decodeString(raw, key.index + key[0].length)
  const start = raw.trimStart()
  // JSON whose output has not begun yet (or a fence around it): nothing to show so far
  if (start.startsWith('{') || raw.includes('```json')) return ''
  return raw
}
