/**
 * Tool cues (issue 57): how a goal tells the built-in offline model and the
 * mock LLM which of a person's tools to call, and with what, the way a
 * person would write it to a real model: a tool's name, then its arguments
 * as one JSON object, e.g. `read_text_file {"path": "/srv/notes.txt"}`.
 * A real model reads such a goal too; the stand-ins need the cue because
 * they cannot understand the prose around it.
 */

export interface ToolCue {
  /** the tool's name */
  name: string
  /** its arguments */
  input: Record<string, unknown>
  /** the cue as it stands in the text (name and JSON) */
  text: string
}

/** The end of the JSON object that starts at `from` (a `{`), or -1 if it does not close. */
function objectEnd(text: string, from: number): number {
  let depth = 0
  let inString = false
  for (let i = from; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) return i
  }
  return -1
}

const escape = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The cues in `text` for tools named in `names`, in the order they appear, each once. */
export function toolCues(text: string, names: readonly string[]): ToolCue[] {
  const found: { at: number; cue: ToolCue }[] = []
  const seen = new Set<string>()
  for (const name of names) {
    const re = new RegExp(`(?<![A-Za-z0-9_.-])${escape(name)}\\s*\\{`, 'g')
    for (const match of text.matchAll(re)) {
      const open = match.index + match[0].length - 1
      const close = objectEnd(text, open)
      if (close < 0) continue
      let input: unknown
      try {
        input = JSON.parse(text.slice(open, close + 1))
      } catch {
        continue
      }
      if (input === null || typeof input !== 'object' || Array.isArray(input)) continue
      const cueText = text.slice(match.index, close + 1)
      if (seen.has(cueText)) continue
      seen.add(cueText)
      found.push({
        at: match.index,
        cue: { name, input: input as Record<string, unknown>, text: cueText },
      })
    }
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.cue)
}
