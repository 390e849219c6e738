/**
 * The lenient reading of real replies (issue 44): each slip real models
 * make, read for what it means, with a note saying what was done.
 */
import { describe, expect, it } from 'vitest'
import { extractJsonObject } from './json-extract'
import { CUT_ERROR, readReply, type ReplyToRead } from './reply-reader'
import { setAsideThinking, unfence } from './reply-repair'
import type { LlmTaskKind } from './types'

/** A reply as a text-mode provider hands it over: its text, and its own first extraction. */
function reply(text: string, more: Partial<ReplyToRead> = {}): ReplyToRead {
  return { json: extractJsonObject(text), text, ...more }
}
const read = (kind: LlmTaskKind, text: string, more: Partial<ReplyToRead> = {}) =>
  readReply(kind, reply(text, more))

const SPLIT = {
  subgoals: [
    { text: 'Book the venue', dependsOn: [] },
    { text: 'Send the invitations', dependsOn: [0] },
    { text: 'Order the cake', dependsOn: [] },
  ],
  rationale: 'venue first',
}
const DRAFT = {
  subgoals: [
    { text: 'Draft step one', dependsOn: [] },
    { text: 'Draft step two', dependsOn: [] },
  ],
  rationale: 'a first idea',
}

/** A score's judgements of a two-part split, as an object and as JSON text. */
const JUDGED = [
  { atomic: true, capability: 'can_write_text' },
  { atomic: false, capability: 'can_query_api' },
]
const J = JSON.stringify(JUDGED).replace(/,"/g, ', "').replace(/":/g, '": ')

describe('reasoning set aside', () => {
  it('parses the answer after a <think> block, not the draft JSON inside it', () => {
    const think = `<think>\nLet me draft: ${JSON.stringify(DRAFT)}\nHmm, the venue matters more.\n</think>`
    const out = read('decompose', `${think}\n\n${JSON.stringify(SPLIT)}`)
    expect(out).toEqual({
      ok: true,
      value: SPLIT,
      notes: [`set aside a <think> block (${think.length} chars)`],
    })
    // the provider's own extraction does not take the draft either
    expect(extractJsonObject(`${think}\n${JSON.stringify(SPLIT)}`)).toMatchObject({ value: SPLIT })
  })

  it('sets aside reasoning whose opening tag was in the prompt (only </think> in the reply)', () => {
    const text = `The user wants a split. ${JSON.stringify(DRAFT)} no wait.\n</think>\n${JSON.stringify(SPLIT)}`
    const out = read('decompose', text)
    expect(out).toMatchObject({ ok: true, value: SPLIT })
    if (out.ok) expect(out.notes[0]).toMatch(/^set aside reasoning that ended with a <\/think> tag/)
  })

  it('a reply that never leaves its <think> block holds no answer, and is cut at the limit', () => {
    const text = `<think>I should split this into ${JSON.stringify(DRAFT)} or maybe`
    expect(read('decompose', text, { finishReason: 'stop' })).toMatchObject({
      ok: false,
      error: 'the reply held only reasoning: its <think> block never closed',
      cut: false,
    })
    // no word on why it stopped: a reply ending inside its reasoning was most likely cut
    expect(read('decompose', text)).toMatchObject({ ok: false, cut: true })
    expect(read('decompose', text, { finishReason: 'length' })).toMatchObject({
      ok: false,
      error: CUT_ERROR,
      cut: true,
    })
  })

  it('notes reasoning the provider sent apart (reasoning_content, Anthropic thinking)', () => {
    const out = read('score', `{"score": 0.7, "notes": "ok", "judgements": ${J}}`, {
      reasoningChars: 5120,
    })
    expect(out).toEqual({
      ok: true,
      value: { score: 0.7, notes: 'ok', judgements: JUDGED },
      notes: ["set aside the model's separate reasoning (5120 chars; its tokens are counted)"],
    })
  })

  it('knows <thinking> and <reasoning> too, and leaves other tags alone', () => {
    expect(setAsideThinking('<thinking>x</thinking>A').answer).toBe('A')
    expect(setAsideThinking('<Reasoning>x</Reasoning> A').answer).toBe('A')
    expect(setAsideThinking('<b>bold</b>').answer).toBe('<b>bold</b>')
  })
})

describe('JSON slips repaired', () => {
  const score = { score: 0.7, notes: 'ok', judgements: JUDGED }
  it.each([
    [
      'prose and a fence around it',
      `Sure! Here it is:\n\`\`\`json\n{"score": 0.7, "notes": "ok", "judgements": ${J}}\n\`\`\`\nHope it helps.`,
    ],
    [
      'a trailing comma',
      `Here you go:\n\`\`\`json\n{"score": 0.7, "notes": "ok", "judgements": ${J},}\n\`\`\``,
    ],
    [
      'a // comment line',
      `\`\`\`json\n{\n  // my score\n  "score": 0.7,\n  "notes": "ok",\n  "judgements": ${J}\n}\n\`\`\``,
    ],
    ['a /* */ comment', `{"score": 0.7 /* fairly good */, "notes": "ok", "judgements": ${J}}`],
    [
      'single-quoted keys and strings',
      `{'score': 0.7, 'notes': 'ok', 'judgements': [{'atomic': true, 'capability': 'can_write_text'}, {'atomic': false, 'capability': 'can_query_api'}]}`,
    ],
    [
      'unquoted keys',
      `{score: 0.7, notes: "ok", judgements: [{atomic: true, capability: "can_write_text"}, {atomic: false, capability: "can_query_api"}]}`,
    ],
  ])('%s', (_, text) => {
    const out = read('score', text)
    expect(out).toMatchObject({ ok: true, value: score })
  })

  it('says when it repaired the JSON', () => {
    const out = read('score', `{"score": 0.7, "notes": "ok", "judgements": ${J},}`)
    expect(out).toEqual({
      ok: true,
      value: score,
      notes: ['repaired the JSON (trailing commas, comments, quotes…)'],
    })
  })

  it('keeps raw newlines of a deliverable written inside a JSON string', () => {
    const out = read('execute', '{"output": "# Plan\n\n- one\n- two"}')
    expect(out).toMatchObject({ ok: true, value: { output: '# Plan\n\n- one\n- two' } })
  })

  it('takes the last object that passes when a model drafts in prose and then corrects itself', () => {
    const text = `First try: ${JSON.stringify(DRAFT)}\nActually, better:\n${JSON.stringify(SPLIT)}`
    const out = read('decompose', text)
    expect(out).toMatchObject({ ok: true, value: SPLIT })
    if (out.ok) expect(out.notes).toContain('took JSON object 2 of 2 in the reply')
  })

  it('never closes an object the reply left open', () => {
    const cut = '{"subgoals": [{"text": "Book the venue", "dependsOn": []}, {"text": "Send'
    expect(extractJsonObject(cut)).toEqual({
      ok: false,
      error: 'the JSON object in the reply is not closed (cut off?)',
    })
    expect(read('decompose', cut, { finishReason: 'length' })).toMatchObject({
      ok: false,
      cut: true,
    })
    // the model stopped by itself: its error goes back to it, no more room needed
    expect(read('decompose', cut, { finishReason: 'stop' })).toMatchObject({
      ok: false,
      error: 'the JSON object in the reply is not closed (cut off?)',
      cut: false,
    })
  })
})

describe('a plain-text deliverable is the deliverable', () => {
  const markdown = '## Venue\n\nThe Oak Room seats 30; book by Friday.\n\n- deposit: 200 €'

  it('takes plain Markdown as the output of an execute or roll-up call, with a note', () => {
    for (const kind of ['execute', 'rollup'] as const) {
      expect(read(kind, markdown)).toEqual({
        ok: true,
        value: { output: markdown },
        notes: ['took the plain-text reply as the deliverable (it had no JSON wrapper)'],
      })
    }
  })

  it('unwraps a reply fenced whole as ```markdown, and sets aside its <think> first', () => {
    const out = read('execute', `<think>plan it</think>\n\`\`\`markdown\n${markdown}\n\`\`\``)
    expect(out).toMatchObject({ ok: true, value: { output: markdown } })
    expect(unfence('```\nA\n```')).toBe('A')
  })

  it('keeps a JSON example inside a Markdown deliverable as part of it', () => {
    const text = 'Use this config:\n\n```json\n{"port": 8080}\n```\n\nThen restart.'
    expect(read('execute', text)).toMatchObject({ ok: true, value: { output: text } })
  })

  it('does not take plain text for other kinds, nor a reply that meant JSON, nor a cut one', () => {
    expect(read('decompose', markdown)).toMatchObject({
      ok: false,
      error: 'no JSON object found in the reply',
    })
    // {"output": ""} in a fence: the model meant JSON; the schema error goes back to it
    const meant = 'Sure! Here is the result:\n\n```json\n{"output": ""}\n```\n'
    expect(read('execute', meant)).toMatchObject({
      ok: false,
      error: expect.stringContaining('output is empty'),
    })
    expect(read('execute', markdown, { finishReason: 'length' })).toEqual({
      ok: false,
      error: CUT_ERROR,
      notes: [],
      cut: true,
    })
  })

  it('accepts a complete answer even when the model then ran on to the limit', () => {
    const out = read(
      'score',
      `{"score": 0.7, "notes": "ok", "judgements": ${J}}\nAnd some more thoughts that`,
      {
        finishReason: 'length',
      },
    )
    expect(out).toMatchObject({ ok: true, value: { score: 0.7, notes: 'ok', judgements: JUDGED } })
  })
})

describe('structured output without text', () => {
  it("uses the provider's own parse when the text holds no object (a forced tool call)", () => {
    const out = readReply('score', {
      json: { ok: true, value: { score: 0.4, notes: 'meh', judgements: JUDGED } },
      text: '',
      finishReason: 'tool-calls',
    })
    expect(out).toEqual({
      ok: true,
      value: { score: 0.4, notes: 'meh', judgements: JUDGED },
      notes: [],
    })
  })
})
