import { describe, expect, it } from 'vitest'
import { extractJsonObject } from './json-extract'
import { MAX_NOTES, MAX_OUTPUT, MAX_RATIONALE, MAX_SUBGOAL_TEXT } from '../protocol/limits'
import { TEXT_OVERRUN } from './output-trim'
import { validateOutput, wireJsonSchema } from './schemas'

const sub = (text: string, dependsOn: number[] = []) => ({ text, dependsOn })

describe('decompose schema', () => {
  it('accepts 2..6 subgoals that depend only on earlier siblings', () => {
    const r = validateOutput('decompose', {
      subgoals: [sub('Choose dates'), sub('Book flights', [0]), sub('Book hotels', [0, 1])],
      rationale: 'ordered',
    })
    expect(r.ok).toBe(true)
  })

  it('rejects a subgoal that depends on itself', () => {
    const r = validateOutput('decompose', { subgoals: [sub('A'), sub('B', [1])], rationale: '' })
    expect(r).toEqual({ ok: false, error: expect.stringContaining('depends on itself') })
  })

  it('rejects a dependency on a later sibling', () => {
    const r = validateOutput('decompose', { subgoals: [sub('A', [1]), sub('B')], rationale: '' })
    expect(r).toEqual({ ok: false, error: expect.stringContaining('later subgoal') })
  })

  it('rejects negative and fractional indices', () => {
    expect(
      validateOutput('decompose', { subgoals: [sub('A'), sub('B', [-1])], rationale: '' }).ok,
    ).toBe(false)
    expect(
      validateOutput('decompose', { subgoals: [sub('A'), sub('B', [0.5])], rationale: '' }).ok,
    ).toBe(false)
  })

  it('rejects fewer than 2 or more than 8 subgoals; 7 or 8 lose their last ones, with a note', () => {
    expect(validateOutput('decompose', { subgoals: [sub('A')], rationale: '' }).ok).toBe(false)
    const steps = (n: number) =>
      Array.from({ length: n }, (_, i) => sub(`Step ${i}`, i ? [i - 1] : []))
    expect(validateOutput('decompose', { subgoals: steps(7), rationale: '' })).toEqual({
      ok: true,
      value: { subgoals: steps(6), rationale: '' },
      notes: ['trimmed subgoals from 7 to 6 (dropped the last)'],
    })
    expect(validateOutput('decompose', { subgoals: steps(8), rationale: '' }).ok).toBe(true)
    const nine = validateOutput('decompose', { subgoals: steps(9), rationale: '' })
    expect(nine).toEqual({ ok: false, error: expect.stringContaining('subgoals') })
  })

  it('rejects empty, blank and oversized subgoal text, and repeated siblings', () => {
    expect(validateOutput('decompose', { subgoals: [sub(''), sub('B')], rationale: '' }).ok).toBe(
      false,
    )
    expect(
      validateOutput('decompose', { subgoals: [sub('   '), sub('B')], rationale: '' }).ok,
    ).toBe(false)
    // far over the limit: sent back; a little over: trimmed at a word boundary
    const long = 'x'.repeat(Math.floor(MAX_SUBGOAL_TEXT * (1 + TEXT_OVERRUN)) + 1)
    expect(validateOutput('decompose', { subgoals: [sub(long), sub('B')], rationale: '' }).ok).toBe(
      false,
    )
    const over = 'Book the venue '.repeat(30).trim() // 449 characters
    const trimmed = validateOutput('decompose', { subgoals: [sub(over), sub('B')], rationale: '' })
    expect(trimmed.ok).toBe(true)
    if (trimmed.ok) {
      const text = trimmed.value.subgoals[0]!.text
      expect(text.length).toBeLessThanOrEqual(MAX_SUBGOAL_TEXT)
      expect(text).toMatch(/(Book|the|venue)…$/)
      expect(trimmed.notes).toEqual([
        `trimmed subgoal 0's text from ${over.length} to ${MAX_SUBGOAL_TEXT} characters at a word boundary`,
      ])
    }
    expect(
      validateOutput('decompose', { subgoals: [sub('Same'), sub('same')], rationale: '' }).ok,
    ).toBe(false)
  })

  it('trims an oversized rationale at a word boundary, whatever its length, with a note', () => {
    const words = 'because the venue decides the date '.repeat(200) // 7000 characters
    const r = validateOutput('decompose', { subgoals: [sub('A'), sub('B')], rationale: words })
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.value.rationale.length).toBeLessThanOrEqual(MAX_RATIONALE)
    expect(r.value.rationale.length).toBeGreaterThan(MAX_RATIONALE - 20)
    expect(r.value.rationale).toMatch(/(because|the|venue|decides|date)…$/)
    expect(r.notes).toEqual([
      `trimmed the rationale from ${words.trim().length} to ${MAX_RATIONALE} characters at a word boundary`,
    ])
  })

  it('trims text and forgives common local-model slips (snake_case, missing dependsOn, repeats)', () => {
    const r = validateOutput('decompose', {
      subgoals: [{ text: '  A  ' }, { text: 'B', depends_on: [0, 0] }],
      rationale: 'ok',
    })
    expect(r).toEqual({
      ok: true,
      value: { subgoals: [sub('A'), sub('B', [0])], rationale: 'ok' },
    })
  })
})

/** Judgements of a two-part split, as a scorer gives them. */
const J = [
  { atomic: true, capability: 'can_write_text' },
  { atomic: false, capability: 'can_query_api' },
]

describe('score, execute and rollup schemas', () => {
  it('keeps scores within 0..1', () => {
    expect(validateOutput('score', { score: 0, notes: '', judgements: J }).ok).toBe(true)
    expect(validateOutput('score', { score: 1, notes: '', judgements: J }).ok).toBe(true)
    expect(validateOutput('score', { score: 1.01, notes: '', judgements: J }).ok).toBe(false)
    expect(validateOutput('score', { score: -0.1, notes: '', judgements: J }).ok).toBe(false)
    expect(validateOutput('score', { score: 'high', notes: '', judgements: J }).ok).toBe(false)
    const notes = validateOutput('score', { score: 0.7, notes: 'n'.repeat(601), judgements: J })
    expect(notes).toMatchObject({
      ok: true,
      notes: [expect.stringMatching(/^trimmed the notes from 601 to 600/)],
    })
    if (notes.ok) expect(notes.value.notes).toBe(`${'n'.repeat(MAX_NOTES - 1)}…`)
  })

  it('accepts a numeric score sent as a string', () => {
    expect(validateOutput('score', { score: '0.75', notes: 'fine', judgements: J })).toEqual({
      ok: true,
      value: { score: 0.75, notes: 'fine', judgements: J },
    })
  })

  it('requires one judgement per subgoal, each with a known capability', () => {
    const score = (judgements: unknown) =>
      validateOutput('score', { score: 0.8, notes: '', judgements })
    expect(score(J).ok).toBe(true)
    expect(score([{ atomic: true, capability: 'can_fly' }, J[1]]).ok).toBe(false)
    expect(score([{ atomic: 'yes', capability: 'can_run_code' }, J[1]]).ok).toBe(false)
    expect(score([J[0]]).ok).toBe(false) // fewer than MIN_SUBGOALS
    expect(score(undefined).ok).toBe(false)
    // a count the schema allows but the task does not (protocol §5.1: such a score is no vote)
    const task = {
      kind: 'score' as const,
      path: ['Plan a party'],
      subgoals: [1, 2, 3].map((n) => ({ text: `Step ${n}`, dependsOn: [] })),
      rationale: '',
      depth: 1,
      maxDepth: 3,
    }
    const two = validateOutput('score', { score: 0.8, notes: '', judgements: J }, task)
    expect(two).toEqual({
      ok: false,
      error:
        'schema violation: judgements: 2 given for 3 subgoals; give exactly one per subgoal, in order',
    })
    const three = [...J, J[0]]
    expect(validateOutput('score', { score: 0.8, notes: '', judgements: three }, task).ok).toBe(
      true,
    )
    // the American spelling is read as ours
    expect(validateOutput('score', { score: 0.8, notes: '', judgments: J })).toEqual({
      ok: true,
      value: { score: 0.8, notes: '', judgements: J },
    })
  })

  it('rejects empty and oversized Markdown output', () => {
    expect(validateOutput('execute', { output: '# Done' }).ok).toBe(true)
    expect(validateOutput('execute', { output: '  \n ' }).ok).toBe(false)
    expect(
      validateOutput('rollup', { output: 'x'.repeat(MAX_OUTPUT * (1 + TEXT_OVERRUN) + 1) }).ok,
    ).toBe(false)
    const over = validateOutput('rollup', { output: 'word '.repeat(MAX_OUTPUT / 5 + 10) })
    expect(over.ok).toBe(true)
    if (over.ok) expect(over.value.output.length).toBeLessThanOrEqual(MAX_OUTPUT)
  })

  it('reports where the output went wrong, for the retry prompt', () => {
    const r = validateOutput('score', { score: 3 })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error).toMatch(/^schema violation: /)
      expect(r.error).toContain('score')
      expect(r.error).toContain('notes')
    }
  })
})

describe('wire JSON schema', () => {
  it('keeps structure and descriptions but no size keywords', () => {
    const schema = wireJsonSchema('decompose')
    const text = JSON.stringify(schema)
    expect(text).toContain('"dependsOn"')
    expect(text).toContain('"additionalProperties":false')
    expect(text).toContain('EARLIER')
    for (const keyword of [
      'maxLength',
      'minLength',
      'minItems',
      'maxItems',
      'minimum',
      'maximum',
      '$schema',
    ]) {
      expect(text).not.toContain(`"${keyword}"`)
    }
    expect(JSON.stringify(wireJsonSchema('score'))).toContain('can_query_api')
  })
})

describe('extractJsonObject', () => {
  it('reads bare JSON, fenced JSON and JSON inside prose', () => {
    expect(extractJsonObject('{"a":1}')).toEqual({ ok: true, value: { a: 1 } })
    expect(extractJsonObject('Sure!\n```json\n{"a": {"b": "}"}}\n```')).toEqual({
      ok: true,
      value: { a: { b: '}' } },
    })
    expect(extractJsonObject('I think {not json} but {"x": [1, 2]} works')).toEqual({
      ok: true,
      value: { x: [1, 2] },
    })
  })

  it('explains what is wrong when there is no object', () => {
    expect(extractJsonObject('')).toEqual({ ok: false, error: 'the reply was empty' })
    expect(extractJsonObject('no braces here')).toEqual({
      ok: false,
      error: 'no JSON object found in the reply',
    })
    const cut = extractJsonObject('{"subgoals": [{"text": "a"')
    expect(cut.ok).toBe(false)
    if (!cut.ok) expect(cut.error).toContain('not closed')
  })
})
