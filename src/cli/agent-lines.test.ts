import { describe, expect, it } from 'vitest'
import type { CallEntry } from '../runtime/call-log'
import { callLines, NET_WARNING_REPEAT_MS, terminalNetLogger } from './agent-lines'

function call(patch: Partial<CallEntry>): CallEntry {
  return {
    id: 'c1',
    goal: null,
    node: null,
    costUsd: null,
    kind: 'decompose',
    provider: 'openai-compatible',
    model: 'llama3.1',
    offline: false,
    system: 'system',
    attempts: [],
    ok: true,
    inputTokens: 10,
    outputTokens: 10,
    startedAt: 0,
    latencyMs: 12_300,
    ...patch,
  }
}

const attempt = (error?: string, errorKind?: CallEntry['errorKind']) => ({
  prompt: 'p',
  inputTokens: 1,
  outputTokens: 1,
  latencyMs: 5,
  ...(error === undefined ? {} : { error }),
  ...(errorKind === undefined ? {} : { errorKind }),
})

describe('callLines', () => {
  it('says nothing of a call that went through at once', () => {
    expect(callLines(call({ attempts: [attempt()] }))).toEqual([])
  })

  it('says each rejected reply and rate limit, one line each, and that it was retried', () => {
    const lines = callLines(
      call({
        attempts: [
          attempt('reply is not JSON:\n  Sure! Here is', 'output'),
          attempt('429 Too Many Requests', 'rate-limit'),
          attempt(),
        ],
      }),
    )
    expect(lines).toEqual([
      'decompose: reply rejected (attempt 1 of 3): reply is not JSON: Sure! Here is; retried',
      'decompose: rate limited by the provider (attempt 2 of 3): 429 Too Many Requests; retried',
    ])
  })

  it('says when it waited or retried, from the call report notes, not its other notes', () => {
    const lines = callLines(
      call({
        attempts: [
          {
            ...attempt('429 Too Many Requests', 'rate-limit'),
            notes: ['waited 20 s: rate limited (body said try again in 20s)'],
          },
          { ...attempt(), notes: ['set aside a <think> block (812 chars)'] },
        ],
      }),
    )
    expect(lines).toEqual([
      'decompose: waited 20 s: rate limited (body said try again in 20s)',
      'decompose: rate limited by the provider (attempt 1 of 2): 429 Too Many Requests; retried',
    ])
  })

  it('says when a call gave up, and why', () => {
    const lines = callLines(
      call({
        kind: 'score',
        ok: false,
        error: 'the reply did not match the schema',
        attempts: [attempt('bad', 'output'), attempt('bad', 'output')],
      }),
    )
    expect(lines.at(-1)).toBe(
      'score: gave up after 2 attempts (12.3 s): the reply did not match the schema',
    )
    expect(lines[1]).toBe('score: reply rejected (attempt 2 of 2): bad')
  })
})

describe('terminalNetLogger', () => {
  it('writes warnings as one short line without JSON, the same one once a minute; info only to DEBUG', () => {
    const lines: string[] = []
    let now = 0
    const log = terminalNetLogger(
      (line) => lines.push(line),
      () => now,
    )
    log.info('linked peer without GossipSub streams; relinking it afresh', { peer: '12D3KooWabc' })
    log.debug('sync session', { records: 3 })
    expect(lines).toEqual([])
    log.warn('gossip: message rejected; dropped', { peer: '12D3KooWxyz123456', topic: 't' })
    log.warn('gossip: message rejected; dropped', { peer: '12D3KooWxyz123456' })
    now += NET_WARNING_REPEAT_MS
    log.warn('gossip: message rejected; dropped', { peer: '12D3KooWxyz123456' })
    log.error('libp2p stop failed', { error: 'x' })
    expect(lines).toEqual([
      'net warning: gossip: message rejected; dropped (peer …123456)',
      'net warning: gossip: message rejected; dropped (peer …123456) (1 more since)',
      'net error: libp2p stop failed',
    ])
  })
})
