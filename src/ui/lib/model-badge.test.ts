import { describe, expect, it } from 'vitest'
import type { ModelStatus } from '../../runtime/types'
import { modelBadge } from './model-badge'

const unknown: ModelStatus = { state: 'unknown', by: null, error: null, kind: null }
const base = { role: 'executor', healthy: true, modelStatus: unknown, offline: false } as const
const works = (by: 'check' | 'call'): ModelStatus => ({
  state: 'works',
  by,
  error: null,
  kind: null,
})

describe('the model badge', () => {
  it('is green only after a check or a call of the model in use succeeded', () => {
    expect(modelBadge(base)).toMatchObject({ label: 'not checked yet', tone: 'idle' })
    expect(modelBadge({ ...base, modelStatus: works('call') })).toMatchObject({
      label: 'last call OK',
      tone: 'good',
    })
    expect(modelBadge({ ...base, modelStatus: works('check') })).toMatchObject({
      label: 'check OK',
      tone: 'good',
    })
    expect(modelBadge({ ...base, offline: true })).toMatchObject({ label: 'ready', tone: 'idle' })
  })

  it('says failing when the provider fails, and after a failed call that nothing has followed', () => {
    const failing: ModelStatus = { state: 'failing', by: 'call', error: '429', kind: 'rate-limit' }
    expect(modelBadge({ ...base, healthy: false, modelStatus: failing })!.tone).toBe('bad')
    // the core's retry cleared "unhealthy", but the last call still failed
    expect(modelBadge({ ...base, modelStatus: failing })).toMatchObject({
      label: 'last call failed',
      tone: 'bad',
    })
  })

  it('says a broken model does not work, with why, whatever worked before (issue 56)', () => {
    const broken: ModelStatus = {
      state: 'broken',
      by: 'check',
      error: 'Wrong API key: http://127.0.0.1:1 rejected it (401)',
      kind: 'auth',
    }
    const badge = modelBadge({ ...base, healthy: false, modelStatus: broken })!
    expect(badge).toMatchObject({ label: 'not working', tone: 'bad' })
    expect(badge.title).toContain('Wrong API key')
    expect(badge.title).toContain('takes no new work')
  })

  it('says nothing for an observer, which calls no model', () => {
    expect(modelBadge({ ...base, role: 'observer' })).toBeNull()
  })
})
