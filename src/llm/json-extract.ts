/**
 * Find the JSON object in a model's free-text reply.
 *
 * Local models (Ollama, LM Studio, llama.cpp) often ignore response_format
 * and tool calls, and wrap their JSON in prose or a ```json fence. Rather
 * than fail, we scan for the first balanced {...} that parses. Strings are
 * tracked so braces inside them do not confuse the scan.
 */

export type JsonExtraction = { ok: true; value: unknown } | { ok: false; error: string }

/** Scanning stops after this many candidate objects: a reply with more is not worth rescuing. */
const MAX_CANDIDATES = 20

/** Index just past the balanced object starting at `start`, or -1 if it never closes. */
function balancedEnd(text: string, start: number): number {
  let depth = 0
  let inString = false
  let escaped = false
  for (let i = start; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (ch === '\\') escaped = true
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    else if (ch === '{') depth++
    else if (ch === '}') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

export function extractJsonObject(text: string): JsonExtraction {
  const trimmed = text.trim()
  if (trimmed === '') return { ok: false, error: 'the reply was empty' }
  // Fast path: the whole reply is the object.
  try {
    const whole: unknown = JSON.parse(trimmed)
    if (whole !== null && typeof whole === 'object' && !Array.isArray(whole))
      return { ok: true, value: whole }
  } catch {
    // not bare JSON: scan below
  }
  let lastError = 'no JSON object found in the reply'
  let from = 0
  for (let n = 0; n < MAX_CANDIDATES; n++) {
    const start = trimmed.indexOf('{', from)
    if (start < 0) break
    const end = balancedEnd(trimmed, start)
    if (end < 0) {
      lastError = 'the JSON object in the reply is not closed (cut off?)'
      break
    }
    try {
      return { ok: true, value: JSON.parse(trimmed.slice(start, end)) as unknown }
    } catch (error) {
      lastError = `invalid JSON in the reply: ${error instanceof Error ? error.message : String(error)}`
      from = start + 1
    }
  }
  return { ok: false, error: lastError }
}
