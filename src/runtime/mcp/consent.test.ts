/**
 * Consent per tool and per person (issue 57), as a rule of code: the call's
 * tool and whose goal it serves decide, never what the model asked for.
 */
import { describe, expect, it } from 'vitest'
import { accessOf, accessWhenTurnedOn, decideCall } from './consent'

describe('consent per tool and per person', () => {
  it('keeps every tool off until its person turns it on', () => {
    expect(accessOf({}, 'files', 'read_text_file')).toBe('off')
    expect(accessOf({ files: { write_file: 'own' } }, 'files', 'read_text_file')).toBe('off')
    for (const ownGoal of [true, false])
      for (const canAsk of [true, false])
        expect(decideCall('off', 'files', 'read_text_file', { ownGoal, canAsk })).toEqual({
          kind: 'refuse',
          why: 'files/read_text_file is off: its person has not turned it on',
        })
  })

  it('turned on: anyone’s goals for a tool that only reads its server, its person’s own for the rest', () => {
    expect(accessWhenTurnedOn({ readOnly: true, openWorld: false })).toBe('anyone')
    expect(accessWhenTurnedOn({ readOnly: false, openWorld: false })).toBe('own')
    // reading the web from this person's machine could reach their own network
    expect(accessWhenTurnedOn({ readOnly: true, openWorld: true })).toBe('own')
  })

  it('runs a tool kept for its person’s own goals for them; another member’s goal asks, or is refused', () => {
    expect(decideCall('own', 'files', 'write_file', { ownGoal: true, canAsk: false })).toEqual({
      kind: 'allow',
    })
    expect(decideCall('own', 'files', 'write_file', { ownGoal: false, canAsk: true })).toEqual({
      kind: 'ask',
    })
    expect(decideCall('own', 'files', 'write_file', { ownGoal: false, canAsk: false })).toEqual({
      kind: 'refuse',
      why: "files/write_file is kept for its person's own goals, and this is another member's goal",
    })
    expect(decideCall('anyone', 'files', 'write_file', { ownGoal: false, canAsk: false })).toEqual({
      kind: 'allow',
    })
  })
})
