import { describe, expect, it } from 'vitest'
import { keptIds, type KeptCandidate } from './kept'

const id = (n: number) => n.toString(16).padStart(32, '0')
const REM = '12D3KooWRem'
const OTHER = '12D3KooWOther'

describe('what a removal keeps (kept.ts)', () => {
  it('every record of the removed PeerIds, held or archived, once, sorted; nobody else’s', () => {
    const held: KeptCandidate[] = [
      { id: id(3), kind: 'result', from: REM },
      { id: id(1), kind: 'bind', from: REM },
      { id: id(2), kind: 'goal', from: OTHER },
      { id: id(3), kind: 'result', from: REM },
    ]
    expect(keptIds(held, new Set([REM]))).toEqual([id(1), id(3)])
  })

  it('over the cap: member records first, then by kind, then lowest id', () => {
    const held: KeptCandidate[] = [
      { id: id(1), kind: 'score', from: REM },
      { id: id(9), kind: 'claim', from: REM },
      { id: id(8), kind: 'result', from: REM },
      { id: id(7), kind: 'bind', from: REM },
      { id: id(5), kind: 'claim', from: REM },
    ]
    expect(keptIds(held, new Set([REM]), 3)).toEqual([id(5), id(7), id(9)])
  })
})
