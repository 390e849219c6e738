import { describe, expect, it } from 'vitest'
import type { LlmCallReport } from '../llm/call-report'
import {
  addCall,
  callEntry,
  EMPTY_CALL_LOG,
  filterCalls,
  MAX_TEXT_CHARS,
  REDACTED,
  redact,
  restoreCallLog,
  type CallEntry,
  type CallLog,
} from './call-log'

const KEY = 'sk-test-9c41e7b2d05a4f38'

function report(patch: Partial<LlmCallReport> = {}): LlmCallReport {
  return {
    kind: 'execute',
    provider: 'openai',
    model: 'gpt-4.1-mini',
    offline: false,
    system: 'You are an executor.',
    attempts: [
      {
        prompt: 'Task: boil water',
        reply: '{"output":"Fill a kettle."}',
        output: { output: 'Fill a kettle.' },
        inputTokens: 30,
        outputTokens: 8,
        latencyMs: 120,
      },
    ],
    ok: true,
    inputTokens: 30,
    outputTokens: 8,
    startedAt: 1_000,
    latencyMs: 125,
    ...patch,
  }
}

const where = (id: string) => ({ id, goal: 'g1', node: 't1', costUsd: 0.0001, secrets: [KEY] })

function entry(id: string, startedAt: number, patch: Partial<LlmCallReport> = {}): CallEntry {
  return callEntry(report({ startedAt, ...patch }), where(id))
}

function fill(ids: string[]): CallLog {
  let log = EMPTY_CALL_LOG
  ids.forEach((id, i) => (log = addCall(log, entry(id, i)).log))
  return log
}

describe('call log entries', () => {
  it('keep the report, where the call was for and its cost', () => {
    const e = entry('a', 5)
    expect(e).toMatchObject({ id: 'a', goal: 'g1', node: 't1', costUsd: 0.0001, kind: 'execute' })
    expect(e.attempts[0]).toMatchObject({
      prompt: 'Task: boil water',
      output: { output: 'Fill a kettle.' },
    })
  })

  it('hold no trace of the API key, in any field, even JSON-escaped', () => {
    const leaky = report({
      system: `key ${KEY}`,
      error: `Incorrect API key provided: ${KEY}`,
      attempts: [
        {
          prompt: `my key is ${KEY}`,
          reply: `"${KEY}"`,
          output: { nested: [KEY] },
          inputTokens: 1,
          outputTokens: 1,
          latencyMs: 1,
        },
      ],
    })
    const e = callEntry(leaky, where('k'))
    const json = JSON.stringify(e)
    expect(json).not.toContain(KEY)
    expect(e.attempts[0]!.prompt).toBe(`my key is ${REDACTED}`)
    expect(e.attempts[0]!.output).toEqual({ nested: [REDACTED] })
    // a key with characters JSON escapes is found too
    const odd = 'key"with\\quotes-123'
    expect(JSON.stringify(redact({ text: `x ${odd} y` }, [odd]))).not.toContain('quotes-123')
  })

  it('do not redact absent or very short secrets', () => {
    expect(redact({ text: 'a b c' }, [undefined, 'a'])).toEqual({ text: 'a b c' })
  })

  it('clip a huge prompt or reply, saying how much was cut', () => {
    const huge = 'x'.repeat(MAX_TEXT_CHARS + 500)
    const e = entry('h', 1, {
      attempts: [{ prompt: huge, reply: huge, inputTokens: 1, outputTokens: 1, latencyMs: 1 }],
    })
    expect(e.attempts[0]!.prompt.length).toBeLessThan(MAX_TEXT_CHARS + 100)
    expect(e.attempts[0]!.reply).toMatch(/500 more characters not kept\]$/)
  })
})

describe('the call log', () => {
  it('lists calls newest first', () => {
    expect(fill(['a', 'b', 'c']).entries.map((e) => e.id)).toEqual(['c', 'b', 'a'])
  })

  it('keeps at most maxCalls, evicting the oldest', () => {
    const log = fill(['a', 'b', 'c'])
    const { log: next, evicted } = addCall(log, entry('d', 9), { maxCalls: 3, maxChars: 1e9 })
    expect(next.entries.map((e) => e.id)).toEqual(['d', 'c', 'b'])
    expect(evicted).toEqual(['a'])
  })

  it('keeps at most maxChars of entries, and never one larger than the cap', () => {
    const size = JSON.stringify(entry('a', 0)).length
    const limits = { maxCalls: 100, maxChars: size * 2 + 10 }
    let log = EMPTY_CALL_LOG
    for (const id of ['a', 'b', 'c']) log = addCall(log, entry(id, 0), limits).log
    expect(log.entries.map((e) => e.id)).toEqual(['c', 'b'])
    expect(log.chars).toBeLessThanOrEqual(limits.maxChars)
    const big = entry('big', 0, { system: 'y'.repeat(size * 3) })
    const added = addCall(log, big, limits)
    expect(added.log.entries.map((e) => e.id)).toEqual(['c', 'b'])
    expect(added.evicted).toEqual(['big'])
  })

  it('replaces an entry added twice', () => {
    const log = addCall(fill(['a', 'b']), entry('a', 7)).log
    expect(log.entries.map((e) => e.id)).toEqual(['a', 'b'])
  })

  it('restores stored entries in any order, newest first, within the limits', () => {
    const stored = [entry('b', 2), entry('c', 3), entry('a', 1)]
    const { log, evicted } = restoreCallLog(stored, { maxCalls: 2, maxChars: 1e9 })
    expect(log.entries.map((e) => e.id)).toEqual(['c', 'b'])
    expect(evicted).toEqual(['a'])
  })

  it('filters by task kind and outcome', () => {
    const calls = [
      entry('d', 3, { kind: 'decompose' }),
      entry('f', 2, { ok: false, error: 'bad' }),
      entry('e', 1),
    ]
    const ids = (f: Parameters<typeof filterCalls>[1]) => filterCalls(calls, f).map((e) => e.id)
    expect(ids({ kind: 'all', status: 'all' })).toEqual(['d', 'f', 'e'])
    expect(ids({ kind: 'execute', status: 'all' })).toEqual(['f', 'e'])
    expect(ids({ kind: 'all', status: 'failed' })).toEqual(['f'])
    expect(ids({ kind: 'execute', status: 'ok' })).toEqual(['e'])
  })
})
