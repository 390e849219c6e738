import { describe, expect, it } from 'vitest'
import { JOIN_EXPECTING_PEERS_MAX_MS, JOIN_FALLBACK_MS, joinsWithoutSync } from './join'

describe('joining without a sync', () => {
  it('a peer alone in its room starts after the short fallback', () => {
    expect(joinsWithoutSync(JOIN_FALLBACK_MS - 1, false)).toBe(false)
    expect(joinsWithoutSync(JOIN_FALLBACK_MS, false)).toBe(true)
  })

  it('a peer that expects company (a reloaded tab) keeps waiting for its sync, but not for ever', () => {
    expect(joinsWithoutSync(JOIN_FALLBACK_MS, true)).toBe(false)
    expect(joinsWithoutSync(JOIN_EXPECTING_PEERS_MAX_MS - 1, true)).toBe(false)
    expect(joinsWithoutSync(JOIN_EXPECTING_PEERS_MAX_MS, true)).toBe(true)
  })
})
