import { describe, expect, it } from 'vitest'
import type { TaskView } from '../../plan/tree'
import type { LiveText, SwarmMember } from '../../runtime/types'
import { liveTextOf, writerOf } from './writing'

const task = (patch: Partial<TaskView> = {}): TaskView => ({
  id: 'task-1',
  status: 'claimed',
  epoch: 0,
  holder: 'peer-b',
  claimedAt: 1,
  output: null,
  resultBy: null,
  steps: null,
  failures: [],
  gap: null,
  why: null,
  ...patch,
})
const member = (peerId: string, holding: string[]): SwarmMember => ({
  peerId,
  role: 'executor',
  model: 'offline-v1',
  offline: true,
  capabilities: ['can_write_text'],
  healthy: true,
  load: holding.length,
  capacity: 4,
  holding,
  lastSeenMs: 10,
})
const live: LiveText = {
  id: 'execute:task-1:0',
  kind: 'execute',
  task: 'task-1',
  goal: 'g',
  attempt: 1,
  text: '# So far',
  chars: 20,
  startedAt: 0,
}

describe('writerOf', () => {
  it('is the holder while its presence still holds the task', () => {
    expect(writerOf(task(), 'me', [member('peer-b', ['task-1'])], [])).toBe('peer-b')
  })

  it('is nobody when the holder is silent, let go of it, or the task is not claimed', () => {
    expect(writerOf(task(), 'me', [], [])).toBeNull()
    expect(writerOf(task(), 'me', [member('peer-b', [])], [])).toBeNull()
    const done = task({ status: 'done', output: 'x' })
    expect(writerOf(done, 'me', [member('peer-b', ['task-1'])], [])).toBeNull()
  })

  it('is this tab while its own call for the task runs', () => {
    expect(writerOf(task({ holder: 'me' }), 'me', [], [live])).toBe('me')
    expect(writerOf(task({ holder: 'me' }), 'me', [], [])).toBeNull()
    expect(liveTextOf(task(), [live])).toBe(live)
    expect(liveTextOf(task({ id: 'other' }), [live])).toBeNull()
  })
})
