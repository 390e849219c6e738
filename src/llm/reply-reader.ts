/**
 * A model's reply read as leniently as its meaning allows (issue 44), then
 * judged by the task's schema: the one reading runLlmTask makes of every
 * reply, whatever the provider and mode.
 *
 * In order:
 * 1. reasoning is set aside: <think> blocks in the text (reply-repair.ts);
 *    reasoning the provider sent apart is only noted (its tokens count);
 * 2. every JSON object in what is left is a candidate, slips repaired
 *    (json-extract.ts); the LAST that passes the schema wins, because a
 *    model that drafts aloud then corrects itself means the later one;
 * 3. the provider's own parse (structured output, a forced tool call), for
 *    replies whose text does not hold the object;
 * 4. an execute or roll-up reply in plain Markdown is the deliverable
 *    itself: asking again for the same text in a JSON wrapper costs a call
 *    and gains nothing;
 * 5. a reply cut at the token limit (finish reason `length`) that holds no
 *    complete answer is reported as cut, so runLlmTask asks again with more
 *    room instead of feeding back a parse error.
 * Trims of values a little over a limit happen in validateOutput
 * (output-trim.ts). Every leniency leaves a note for the call log.
 */
import { jsonCandidates, type JsonExtraction } from './json-extract'
import { reasoningNote, setAsideThinking, unfence } from './reply-repair'
import { validateOutput } from './schemas'
import type { LlmOutputs, LlmTask, LlmTaskKind } from './types'

export interface ReplyToRead {
  /** the provider's parse of the reply (structured output, or its own extraction) */
  json: JsonExtraction
  /** the reply's text, reasoning tags and all */
  text: string
  /** why generation stopped, as the AI SDK says: 'length' is the token limit */
  finishReason?: string
  /** characters of reasoning the provider sent apart from the text */
  reasoningChars?: number
}

export type Reading<K extends LlmTaskKind> =
  | { ok: true; value: LlmOutputs[K]; notes: string[] }
  | {
      ok: false
      error: string
      notes: string[]
      /** cut at the token limit: worth asking again with more room */
      cut: boolean
    }

/** The kinds whose whole answer is Markdown: a plain-text reply is their deliverable. */
const DELIVERABLE_KINDS: readonly LlmTaskKind[] = ['execute', 'rollup']

/** The finish reason the AI SDK gives a reply stopped by maxOutputTokens (OpenAI `length`, Anthropic `max_tokens`). */
export const CUT_AT_LIMIT = 'length'

/** The answer opens as a JSON object would (bare or in a ```json fence): not plain Markdown. */
function looksLikeJson(answer: string): boolean {
  return /^(?:```(?:json|jsonc|json5)?\s*)?\{/i.test(answer)
}

export const CUT_ERROR =
  'the reply was cut off at the token limit before it was complete; answer more briefly, with the JSON object only'

export function readReply<K extends LlmTaskKind>(
  kind: K,
  reply: ReplyToRead,
  /** the task asked: what the reply must also fit (schemas.ts taskMismatch) */
  task?: LlmTask,
): Reading<K> {
  const notes: string[] = []
  if (reply.reasoningChars) notes.push(reasoningNote(reply.reasoningChars))
  const thinking = setAsideThinking(reply.text)
  notes.push(...thinking.notes)
  const { answer } = thinking
  const cutAtLimit = reply.finishReason === CUT_AT_LIMIT
  const candidates = jsonCandidates(answer)
  // A reply that ends inside its reasoning or inside an object was cut, whatever came before.
  const endsCut = thinking.unclosed || candidates.cut
  const accept = (value: LlmOutputs[K], more: string[] = []): Reading<K> => ({
    ok: true,
    value,
    notes: [...notes, ...more],
  })

  /** the schema's error for the likeliest answer (the last object), fed back if nothing passes */
  let likeliestError: string | undefined
  if (!(cutAtLimit && endsCut)) {
    for (let i = candidates.found.length - 1; i >= 0; i--) {
      const candidate = candidates.found[i]!
      const checked = validateOutput(kind, candidate.value, task)
      if (checked.ok) {
        const more = [
          ...(candidate.repaired ? ['repaired the JSON (trailing commas, comments, quotes…)'] : []),
          ...(candidates.found.length > 1
            ? [`took JSON object ${i + 1} of ${candidates.found.length} in the reply`]
            : []),
          ...(checked.notes ?? []),
        ]
        return accept(checked.value, more)
      }
      likeliestError ??= checked.error
    }
    if (reply.json.ok) {
      const checked = validateOutput(kind, reply.json.value, task)
      if (checked.ok) return accept(checked.value, checked.notes)
      likeliestError ??= checked.error
    }
  }

  const plain = unfence(answer)
  // an {"output": ...} anywhere in the reply says the model meant JSON: its error goes back to it
  const meantJson =
    looksLikeJson(answer) ||
    candidates.found.some(
      (c) => typeof c.value === 'object' && c.value !== null && 'output' in c.value,
    )
  if (
    DELIVERABLE_KINDS.includes(kind) &&
    !cutAtLimit &&
    !thinking.unclosed &&
    plain !== '' &&
    !meantJson
  ) {
    const checked = validateOutput(kind, { output: plain })
    if (checked.ok)
      return accept(checked.value, [
        'took the plain-text reply as the deliverable (it had no JSON wrapper)',
        ...(checked.notes ?? []),
      ])
    likeliestError ??= checked.error
  }

  if (cutAtLimit) return { ok: false, error: CUT_ERROR, notes, cut: true }
  let error = likeliestError
  if (error === undefined) {
    if (thinking.unclosed && answer === '')
      error = 'the reply held only reasoning: its <think> block never closed'
    else if (answer === '' && !reply.json.ok) error = reply.json.error
    else error = candidates.error || 'the reply was empty'
  }
  // an object left open with no word on why generation stopped was most likely cut too
  const cut = endsCut && reply.finishReason !== 'stop'
  return { ok: false, error: cut ? CUT_ERROR : error, notes, cut }
}
