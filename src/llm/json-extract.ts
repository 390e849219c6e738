/**
 * Find the JSON objects in a model's free-text reply (issue 44).
 *
 * Local models (Ollama, LM Studio, llama.cpp) often ignore response_format
 * and tool calls: they wrap their JSON in prose or a ```json fence, think
 * aloud first (<think>…</think>, set aside by reply-repair.ts), and write
 * JSON with slips: trailing commas, // and /* *\/ comments, single quotes,
 * raw newlines or unescaped quotes inside strings, Python's True/None.
 * Each top-level {...} in the reply is a candidate; one that JSON.parse
 * refuses is repaired with jsonrepair, a maintained library (3 KB
 * gzipped, pure JS): on a corpus of 16 replies with such slips it read all
 * 16, where the scanner it replaced read 3 (two of them slip-free, the
 * third by taking a nested object for the answer).
 *
 * One repair is never made: closing an object the reply never closed. A
 * reply cut at the token limit would otherwise pass as a complete, shorter
 * answer; it is reported as cut, and runLlmTask asks again with more room.
 */
import { jsonrepair } from 'jsonrepair'
import { setAsideThinking } from './reply-repair'

export type JsonExtraction =
  { ok: true; value: unknown; notes?: string[] } | { ok: false; error: string; notes?: string[] }

/** One object found in the reply. */
export interface JsonCandidate {
  value: unknown
  /** jsonrepair had to fix it (a trailing comma, a comment, ...) */
  repaired: boolean
}

/** Scanning stops after this many candidate objects: a reply with more is not worth rescuing. */
const MAX_CANDIDATES = 20

/** The error when nothing that looks like an object is in the reply. */
export const NO_JSON = 'no JSON object found in the reply'
/** The error when an object opens but never closes: the reply was cut (or the model forgot). */
export const NOT_CLOSED = 'the JSON object in the reply is not closed (cut off?)'

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * Index just past the balanced object starting at `start`, or -1 if it
 * never closes. Double-quoted strings are tracked so braces inside them do
 * not count; slips inside the object are for jsonrepair to judge.
 */
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

/** The object in `span` (which starts with { and ends with }), parsed or repaired. */
function parseSpan(span: string): JsonCandidate | undefined {
  try {
    const value: unknown = JSON.parse(span)
    return isObject(value) ? { value, repaired: false } : undefined
  } catch {
    // a slip: let jsonrepair fix it
  }
  try {
    const value: unknown = JSON.parse(jsonrepair(span))
    return isObject(value) ? { value, repaired: true } : undefined
  } catch {
    return undefined
  }
}

export interface Candidates {
  /** the top-level objects of the reply, in order */
  found: JsonCandidate[]
  /** why none was found, when none was */
  error: string
  /** the reply ends inside an object that never closes: it was cut off */
  cut: boolean
}

/** Every top-level JSON object in an answer (reasoning already set aside). */
export function jsonCandidates(answer: string): Candidates {
  const text = answer.trim()
  if (text === '') return { found: [], error: 'the reply was empty', cut: false }
  const found: JsonCandidate[] = []
  let error = NO_JSON
  let cut = false
  let from = 0
  while (found.length < MAX_CANDIDATES) {
    const start = text.indexOf('{', from)
    if (start < 0) break
    const end = balancedEnd(text, start)
    if (end < 0) {
      error = NOT_CLOSED
      cut = true
      break
    }
    const candidate = parseSpan(text.slice(start, end))
    if (candidate) {
      found.push(candidate)
      from = end
    } else {
      error = 'invalid JSON in the reply, beyond repair'
      from = start + 1
    }
  }
  return { found, error: found.length > 0 ? '' : error, cut }
}

/**
 * The first JSON object of a reply, its reasoning set aside and slips
 * repaired: what a provider hands back as the parsed reply. runLlmTask
 * reads the reply again, more thoroughly (reply-reader.ts).
 */
export function extractJsonObject(text: string): JsonExtraction {
  const { answer, notes } = setAsideThinking(text)
  const { found, error } = jsonCandidates(answer)
  const first = found[0]
  const extra = notes.length > 0 ? { notes } : {}
  if (!first) return { ok: false, error, ...extra }
  return { ok: true, value: first.value, ...extra }
}
