import { describe, expect, it } from 'vitest'
import { QUORUM_VOTES } from '../protocol/rules'
import { scoreOrder } from './scorer'

describe('scoreOrder: which proposal a busy scorer scores first', () => {
  it('takes proposals whose quorum it is ranked for in order of arrival, whatever its rank', () => {
    const second = { rank: 1, seenAt: 100 } // ranked second, arrived first
    const first = { rank: 0, seenAt: 200 } // ranked first, arrived later
    expect([first, second].sort(scoreOrder)).toEqual([second, first])
  })

  it('takes a proposal it would give a third vote to only after those', () => {
    const third = { rank: QUORUM_VOTES, seenAt: 0 }
    const quorum = { rank: QUORUM_VOTES - 1, seenAt: 500 }
    expect([third, quorum].sort(scoreOrder)).toEqual([quorum, third])
  })

  it('breaks a tie in arrival by rank', () => {
    const a = { rank: 1, seenAt: 100 }
    const b = { rank: 0, seenAt: 100 }
    expect([a, b].sort(scoreOrder)).toEqual([b, a])
  })
})
