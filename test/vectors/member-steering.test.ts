/**
 * The memberSteering vectors (docs/test-vectors.json), checked by the rule of
 * PROTOCOL.md §5.10 alone, as a peer written elsewhere would: each bind's
 * member signature verified with node:crypto, each PeerId's member read from
 * its bind, and a steer or cancel counted when its author and the root
 * goal's author act for the same member. vectors.test.ts checks the file is
 * what the code generates.
 */
import { createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { generateVectors } from './generate'

const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as ReturnType<typeof generateVectors>
const v = vectors.memberSteering
const ED_SPKI = Buffer.from('302a300506032b6570032100', 'hex')

type Spelled = { kind: string; id: string; from: string; [field: string]: unknown }
const records = v.records as unknown as Spelled[]

/** PeerId → member, from binds whose member signature verifies (§0.1). */
function membersOf(list: readonly Spelled[]): Map<string, string> {
  const peers = new Map<string, string>()
  for (const bind of list.filter((r) => r.kind === 'bind')) {
    const member = bind.member as string
    const key = createPublicKey({
      key: Buffer.concat([ED_SPKI, Buffer.from(member, 'base64url')]),
      format: 'der',
      type: 'spki',
    })
    const message = Buffer.from(`murmuration/bind/1\n${v.room}\n${bind.from}`)
    expect(verify(null, message, key, Buffer.from(bind.sig as string, 'base64url'))).toBe(true)
    peers.set(bind.from, member)
  }
  return peers
}

describe('memberSteering vectors (§5.10, §5.12)', () => {
  it('the two owner PeerIds act for the owner, the guest’s for the guest', () => {
    const peers = membersOf(records)
    const goal = records.find((r) => r.id === v.goal)!
    expect(peers.get(goal.from)).toBe(v.owner)
    expect(new Set(peers.values())).toEqual(new Set([v.owner, v.guestMember]))
  })

  it('a steer or cancel counts when its author acts for the goal author’s member', () => {
    const peers = membersOf(records)
    const goal = records.find((r) => r.id === v.goal)!
    const steering = records.filter((r) => r.kind === 'steer' || r.kind === 'cancel')
    const counts = (r: Spelled) => peers.get(r.from) === peers.get(goal.from)
    expect(steering.filter(counts).map((r) => r.id)).toEqual(v.counted)
    expect(steering.filter((r) => !counts(r)).map((r) => r.id)).toEqual(v.ignored)
    // the latest counted steer sets the goal's pause; no counted cancel yet
    const steers = steering.filter((r) => r.kind === 'steer' && counts(r))
    const latest = steers.sort((a, b) => (a.at as number) - (b.at as number)).at(-1)!
    expect(v.outcome.paused).toBe(latest.paused)
    expect(v.outcome.cancelled).toBe(false)
    // the owner's second PeerId cancels: that one counts
    const cancel = v.ownerCancel as unknown as Spelled
    expect(counts(cancel)).toBe(true)
    expect(v.afterOwnerCancel).toMatchObject({ cancelled: true, status: 'cancelled' })
  })
})
