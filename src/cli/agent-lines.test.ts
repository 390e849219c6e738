import { describe, expect, it } from 'vitest'
import type { CallEntry } from '../runtime/call-log'
import { createPeer } from '../roles/peer'
import { ActivityLog } from '../runtime/activity'
import {
  activityLine,
  callLines,
  earlierLines,
  NET_WARNING_REPEAT_MS,
  terminalNetLogger,
} from './agent-lines'

const MODEL = { provider: 'openai-compatible', model: 'm' } as const

function executor() {
  return createPeer(
    {
      peerId: 'peer-a',
      room: 'r',
      role: 'executor',
      capabilities: ['can_write_text'],
      capacity: 1,
      model: 'openai-compatible/m',
      offline: false,
    },
    0,
  )
}

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
  it('says nothing of a call that went through, at once or after waits (each was said as it started)', () => {
    expect(callLines(call({ attempts: [attempt()] }))).toEqual([])
    const afterWaits = call({
      attempts: [
        attempt('reply is not JSON:\n  Sure! Here is', 'output'),
        {
          ...attempt('429 Too Many Requests', 'rate-limit'),
          notes: ['waited 20 s: rate limited (body said try again in 20s)'],
        },
        attempt(),
      ],
    })
    expect(callLines(afterWaits)).toEqual([])
  })

  it('says when a call gave up, and why, once', () => {
    const lines = callLines(
      call({
        kind: 'score',
        ok: false,
        error: 'the reply did not match the schema',
        attempts: [attempt('bad', 'output'), attempt('bad', 'output')],
      }),
    )
    expect(lines).toEqual([
      'score: gave up after 2 requests (12.3 s): the reply did not match the schema',
    ])
  })

  it('says why a rate limit was not waited out', () => {
    const lines = callLines(
      call({
        ok: false,
        error: 'OpenAI is rate limiting (429); retry after 600 s: slow down',
        errorKind: 'rate-limit',
        attempts: [
          {
            ...attempt('OpenAI is rate limiting (429)', 'rate-limit'),
            notes: [
              'gave up: rate limited; waiting 600 s (retry-after header: 600) would pass the 120 s this call waits in all',
            ],
          },
        ],
      }),
    )
    expect(lines).toEqual([
      'decompose: gave up after 1 request (12.3 s): OpenAI is rate limiting (429); retry after 600 s: slow down (gave up: rate limited; waiting 600 s (retry-after header: 600) would pass the 120 s this call waits in all)',
    ])
  })
})

describe('the activity as the terminal prints it', () => {
  const at = (hh: number, mm: number, ss: number) => new Date(2026, 0, 1, hh, mm, ss).getTime()

  it('prints each entry once, in order, stamped with when it happened, a repeated text too', () => {
    // the log merges repeats for the screen; the terminal is told each entry as it is recorded
    const printed: string[] = []
    const log = new ActivityLog(executor(), (entry) => printed.push(activityLine(entry)))
    const claimed = { type: 'claimed', task: 't', epoch: 0, designated: true } as const
    log.record([claimed], [], at(10, 0, 0))
    log.record([claimed], [], at(10, 0, 5))
    log.record([{ type: 'was-away', tasks: 1, awayMs: 40_000 }], [], at(10, 0, 7))
    log.record([claimed], [], at(10, 0, 9))
    expect(printed).toEqual([
      '10:00:00 Claimed a task',
      '10:00:05 Claimed a task',
      '10:00:07 Away 40 s, longer than a lease: checking with peers before working again',
      '10:00:09 Claimed a task',
    ])
    // what the screen shows is unchanged: the first two are one entry, seen twice
    const recent = log.snapshot(MODEL, at(10, 0, 9)).recent
    expect(recent.map((e) => [e.text.slice(0, 14), e.count])).toEqual([
      ['Claimed a task', 1],
      ['Away 40 s, lon', 1],
      ['Claimed a task', 2],
    ])
  })

  it('prints a wait when it starts, with its real length and cause: rate limit, overload, server error', () => {
    const printed: string[] = []
    const log = new ActivityLog(executor(), (entry) => printed.push(activityLine(entry)))
    const wait = { kind: 'execute', attempt: 1, maxAttempts: 3, error: 'e' } as const
    log.retrying(
      { ...wait, cause: 'rate-limit', status: 429, ms: 14_000, why: 'retry-after header: 14' },
      at(9, 0, 0),
    )
    log.retrying(
      { ...wait, cause: 'rate-limit', status: 429, ms: 2_500, why: 'body said try again in 2.5s' },
      at(9, 0, 14),
    )
    log.retrying(
      { ...wait, cause: 'overloaded', status: 503, ms: 2_000, why: 'no wait given; backing off' },
      at(9, 0, 17),
    )
    log.retrying(
      {
        ...wait,
        cause: 'server-error',
        status: 500,
        ms: 1_000,
        attempt: 2,
        error: 'mock answered 500: internal error',
      },
      at(9, 0, 20),
    )
    expect(printed).toEqual([
      '09:00:00 execute: rate limited (429): waiting 14 s (retry-after header: 14)',
      '09:00:14 execute: rate limited (429): waiting 2.5 s (body said try again in 2.5s)',
      '09:00:17 execute: provider overloaded (503): waiting 2 s (no wait given; backing off)',
      '09:00:20 execute: server error (500): mock answered 500: internal error; waiting 1 s, then attempt 2 of 3',
    ])
  })

  it('says at start what was recorded before it listened, oldest first, each once', () => {
    const log = new ActivityLog(executor())
    const claimed = { type: 'claimed', task: 't', epoch: 0, designated: false } as const
    log.record([claimed], [], at(8, 0, 0))
    log.record([claimed], [], at(8, 0, 3))
    log.record([{ type: 'was-away', tasks: 1, awayMs: 90_000 }], [], at(8, 0, 4))
    expect(earlierLines(log.snapshot(MODEL, at(8, 0, 5)).recent)).toEqual([
      '08:00:03 Claimed a task (stepping in) (×2)',
      '08:00:04 Away 90 s, longer than a lease: checking with peers before working again',
    ])
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
