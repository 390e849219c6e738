import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CallEntry } from './call-log'
import { jsonLinesCallStore } from './call-log.node'

let dir: string | null = null
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
  dir = null
})

const entry = (id: string): CallEntry => ({
  id,
  goal: 'g',
  node: 'n',
  costUsd: null,
  kind: 'score',
  provider: 'openai-compatible',
  model: 'local',
  offline: false,
  system: 'sys',
  attempts: [{ prompt: 'p', reply: 'r', inputTokens: 1, outputTokens: 1, latencyMs: 1 }],
  ok: true,
  inputTokens: 1,
  outputTokens: 1,
  startedAt: 1,
  latencyMs: 1,
})

describe('an agent’s call log file (--log-calls)', () => {
  it('appends each call as one JSON line, creating the directory, and keeps what the log drops', async () => {
    dir = await mkdtemp(join(tmpdir(), 'murm-calls-'))
    const path = join(dir, 'sub', 'calls.jsonl')
    const store = jsonLinesCallStore(path)
    await Promise.all([store.save(entry('a')), store.save(entry('b'))])
    await store.remove(['a'])
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
    expect(lines.map((line) => (JSON.parse(line) as CallEntry).id)).toEqual(['a', 'b'])
    expect(await store.load()).toEqual([])
  })
})
