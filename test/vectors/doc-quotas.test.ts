/**
 * docs/THREAT_MODEL.md lists every kind's author quota, and what one author
 * can make every peer hold, as src/protocol/limits.ts has them: the list
 * once left out the 1,024 steers, verdicts and redos. A quota changed or a
 * kind added without the document fails here.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AUTHOR_QUOTA } from '../../src/protocol/limits'

const threatModel = readFileSync(new URL('../../docs/THREAT_MODEL.md', import.meta.url), 'utf8')
  .replace(/\s+/g, ' ')
  .replace(/ - /g, ' ')

/** `1,024` → 1024 */
const number = (text: string) => Number(text.replace(/,/g, ''))

describe('docs/THREAT_MODEL.md states the author quota of src/protocol/limits.ts', () => {
  it('every kind, with its number, and no other', () => {
    const list = /`AUTHOR_QUOTA` in `src\/protocol\/limits\.ts`: ([^)]*)\)/.exec(threatModel)
    expect(list, 'the quota list').not.toBeNull()
    const stated = Object.fromEntries(
      [...list![1]!.matchAll(/`(\w+)` ([\d,]+)/g)].map((m) => [m[1]!, number(m[2]!)]),
    )
    expect(stated).toEqual({ ...AUTHOR_QUOTA })
  })

  it('what one author can make every peer hold: the sum of the quotas', () => {
    const total = /hold up to ([\d,]+) such records \(the sum of the quotas above\)/.exec(
      threatModel,
    )
    expect(total, 'the total').not.toBeNull()
    const sum = Object.values(AUTHOR_QUOTA).reduce((a: number, b: number) => a + b, 0)
    expect(number(total![1]!)).toBe(sum)
  })
})
