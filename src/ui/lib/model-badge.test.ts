import { describe, expect, it } from 'vitest'
import { modelBadge } from './model-badge'

const base = { role: 'executor', healthy: true, lastCallOk: null, offline: false } as const

describe('the model badge', () => {
  it('is green only after a call succeeded', () => {
    expect(modelBadge(base)).toMatchObject({ label: 'not tried yet', tone: 'idle' })
    expect(modelBadge({ ...base, lastCallOk: true })).toMatchObject({
      label: 'last call OK',
      tone: 'good',
    })
    expect(modelBadge({ ...base, offline: true })).toMatchObject({ label: 'ready', tone: 'idle' })
  })

  it('says failing when the provider fails, and after a failed call that nothing has followed', () => {
    expect(modelBadge({ ...base, healthy: false, lastCallOk: false })!.tone).toBe('bad')
    // the core's retry cleared "unhealthy", but the last call still failed
    expect(modelBadge({ ...base, lastCallOk: false })).toMatchObject({
      label: 'last call failed',
      tone: 'bad',
    })
  })

  it('says nothing for an observer, which calls no model', () => {
    expect(modelBadge({ ...base, role: 'observer' })).toBeNull()
  })
})
