import { createHash, createPublicKey, hkdfSync, verify } from 'node:crypto'
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../src/protocol/canonical'
import { decodeRecord } from '../../src/protocol/codec'
import { contentId, rendezvousOrder, rendezvousWeight } from '../../src/protocol/hash'
import { nodeId, taskId } from '../../src/protocol/ids'
import { recordId, type WireRecord } from '../../src/protocol/records'
import { roomTopics } from '../../src/protocol/topics'
import { validateRecord } from '../../src/protocol/validate'
import { decodeSecret, deriveRoomKey, openRecord } from '../../src/protocol/room-key'
import { generateVectors, vectorKey } from './generate'

/** The known answers, as a peer written elsewhere would read them. */
const vectors = JSON.parse(
  readFileSync(new URL('../../docs/test-vectors.json', import.meta.url), 'utf8'),
) as ReturnType<typeof generateVectors>

const sha256Hex = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

describe('test vectors (docs/test-vectors.json)', () => {
  it('are what this implementation computes today', () => {
    expect(JSON.parse(JSON.stringify(generateVectors()))).toEqual(vectors)
  })

  it('canonical encodings', () => {
    for (const { value, canonical } of vectors.canonical) {
      expect(canonicalJson(value)).toBe(canonical)
    }
  })

  it('content ids are the first 16 bytes of SHA-256 over the canonical encoding', () => {
    for (const entry of vectors.contentIds) {
      expect(canonicalJson(entry.value)).toBe(entry.canonical)
      expect(sha256Hex(entry.canonical)).toBe(entry.sha256)
      expect(entry.id).toBe(entry.sha256.slice(0, 32))
      expect(contentId(entry.value)).toBe(entry.id)
    }
  })

  it('node and task ids', () => {
    const n = vectors.nodeId
    expect(nodeId(n.goal, n.proposal, n.index, n.text, n.atomic)).toBe(n.id)
    const spelled = canonicalJson(['node', n.goal, n.proposal, n.index, n.text, n.atomic])
    expect(sha256Hex(spelled).slice(0, 32)).toBe(n.id)
    for (const task of vectors.taskIds) {
      expect(taskId(task.type, task.subject)).toBe(task.id)
      expect(sha256Hex(canonicalJson(['task', task.type, task.subject])).slice(0, 32)).toBe(task.id)
    }
  })

  it('the fixed key and its PeerId', () => {
    const key = vectorKey()
    expect(key.seed.toString('hex')).toBe(vectors.key.seed)
    expect(key.publicKey.toString('hex')).toBe(vectors.key.publicKey)
    expect(key.peerId).toBe(vectors.key.peerId)
  })

  it('records: body, id, signing input, signature and wire bytes', () => {
    const publicKey = createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, Buffer.from(vectors.key.publicKey, 'hex')]),
      format: 'der',
      type: 'spki',
    })
    for (const entry of vectors.records) {
      const record = entry.record as WireRecord
      expect(canonicalJson(record)).toBe(entry.body)
      expect(recordId(record)).toBe(entry.id)
      expect(sha256Hex(canonicalJson({ ...record, id: undefined })).slice(0, 32)).toBe(entry.id)
      const input = Buffer.from(entry.signingInput, 'hex')
      expect(input.toString('utf8')).toBe(vectors.signingPrefix + entry.body)
      const signature = Buffer.from(entry.signature, 'hex')
      expect(verify(null, input, publicKey, signature)).toBe(true)
      const wire = Buffer.from(entry.wire, 'hex')
      expect(wire[0]).toBe(1)
      expect(wire.subarray(1, 65).equals(signature)).toBe(true)
      // records carry the stable room id (§3.3), never a transport id
      const room = vectors.members.stableId.id
      expect(record.room).toBe(room)
      const decoded = decodeRecord(new Uint8Array(wire), { room })
      expect(decoded.ok && decoded.record).toEqual(record)
      expect(validateRecord(record, { room }).ok).toBe(true)
      // one flipped body byte and the signature no longer verifies
      const tampered = new Uint8Array(wire)
      tampered[tampered.length - 2]! ^= 1
      expect(decodeRecord(tampered).ok).toBe(false)
    }
  })

  it('rendezvous weights and orders', () => {
    for (const { subject, weights, order } of vectors.rendezvous) {
      for (const [peer, weight] of Object.entries(weights)) {
        expect(rendezvousWeight(subject, peer)).toBe(weight)
        const digest = createHash('sha256')
          .update(canonicalJson([subject, peer]))
          .digest()
        expect(digest.readUIntBE(0, 6)).toBe(weight)
      }
      expect(rendezvousOrder(subject, Object.keys(weights))).toEqual(order)
    }
  })

  it('§0: transport id and record key by HKDF-SHA256 of the decoded invite key, UTF-8 salt and info', () => {
    const r = vectors.room
    const secret = Buffer.from(r.inviteKey, 'base64url')
    expect(secret.toString('hex')).toBe(r.secret)
    expect(Buffer.from(decodeSecret(r.inviteKey)).toString('hex')).toBe(r.secret)
    const hkdf = (info: string, bytes: number) =>
      Buffer.from(hkdfSync('sha256', secret, Buffer.from(r.salt), Buffer.from(info), bytes))
    expect(hkdf(r.transportIdInfo, 16).toString('hex')).toBe(r.transportId)
    expect(hkdf(r.recordKeyInfo, 32).toString('hex')).toBe(r.recordKey)
    const key = deriveRoomKey(r.name, secret)
    expect(key.id).toBe(r.transportId)
    expect(Buffer.from(key.recordKey).toString('hex')).toBe(r.recordKey)
  })

  it('§0: a sealed record, with its associated data', () => {
    const s = vectors.sealed
    expect(s.plain).toBe(vectors.records[0]!.wire)
    expect(Buffer.from(s.associatedData, 'hex').toString('utf8')).toBe(
      `murmuration/sealed/2\n${vectors.room.transportId}`,
    )
    const sealed = Buffer.from(s.sealed, 'hex')
    expect(sealed[0]).toBe(2)
    expect(sealed.subarray(1, 25).toString('hex')).toBe(s.nonce)
    const key = Buffer.from(vectors.room.recordKey, 'hex')
    const cipher = xchacha20poly1305(
      key,
      sealed.subarray(1, 25),
      Buffer.from(s.associatedData, 'hex'),
    )
    expect(Buffer.from(cipher.decrypt(sealed.subarray(25))).toString('hex')).toBe(s.plain)
    const opened = openRecord({ id: vectors.room.transportId, recordKey: key }, sealed)
    expect(opened.ok && Buffer.from(opened.plain).toString('hex')).toBe(s.plain)
    // another room's id in the associated data does not open it
    expect(openRecord({ id: '0'.repeat(32), recordKey: key }, sealed).ok).toBe(false)
  })

  it('§7: fingerprints and the frames that start a session', () => {
    for (const { ids, input, fingerprint } of vectors.sync.fingerprints) {
      const count = Buffer.from([ids.length])
      const spelled = Buffer.concat([
        count,
        ...ids.map((id) => Buffer.concat([Buffer.from([16]), Buffer.from(id, 'hex')])),
      ])
      expect(spelled.toString('hex')).toBe(input)
      expect(sha256Hex(spelled).slice(0, 32)).toBe(fingerprint)
    }
    const h = vectors.sync.hello
    const frame = Buffer.from(h.frame, 'hex')
    expect(h.onWire).toBe(Buffer.from([frame.length]).toString('hex') + h.frame)
    expect([frame[0], frame[1], frame[2]]).toEqual([1, 2, h.room.length])
    expect(frame.subarray(3, 3 + h.room.length).toString('utf8')).toBe(vectors.room.transportId)
    expect(frame[3 + h.room.length]).toBe(h.count)
    expect(frame.subarray(4 + h.room.length).toString('hex')).toBe(h.fingerprint)
    expect(h.fingerprint).toBe(vectors.sync.fingerprints[2]!.fingerprint)
    // RANGES: one range, bound infinity (len 0), mode 2 (idlist), 3 held ids, 0 archived
    const m = vectors.sync.firstMessage
    const ids = m.ids.map((id) => `10${id}`).join('')
    // frame: type, bound, mode, count, 3 × (length, 16 bytes), archived count
    expect(m.ranges).toBe(`${(1 + 1 + 1 + 1 + 3 * 17 + 1).toString(16)}02000203${ids}00`)
    expect(m.roundEnd).toBe('0103')
  })

  it('§2: what gossip messages cost in a neighbour’s bucket', () => {
    const b = vectors.gossipBucket
    expect([b.capacity, b.refillPerS, b.bytesPerToken]).toEqual([600, 60, 16 * 1024])
    for (const { bytes, cost } of b.costs) {
      // one token, plus one per whole 16 KiB (rounded down)
      let whole = 0
      while ((whole + 1) * b.bytesPerToken <= bytes) whole++
      expect(cost).toBe(1 + whole)
    }
    const cost = b.costs.find((c) => c.bytes === b.burst.bytes)!.cost
    expect(b.burst.passed).toBe(Math.min(b.burst.sent, Math.floor(b.capacity / cost)))
    expect(b.burst.left).toBe(b.capacity - b.burst.passed * cost)
    expect(b.burst.after200ms).toBeCloseTo(b.burst.left + 0.2 * b.refillPerS, 9)
  })

  it('§5.12: steering records (goal.approve, steer, verdicts, result.steps, redos) are valid as spelled', () => {
    const room = vectors.members.stableId.id
    for (const record of vectors.steering.records as WireRecord[]) {
      expect(validateRecord(record, { room }), record.kind).toMatchObject({ ok: true })
      expect(sha256Hex(canonicalJson({ ...record, id: undefined })).slice(0, 32)).toBe(record.id)
    }
    const kinds = new Set(vectors.records.map((entry) => entry.record.kind))
    for (const kind of ['goal', 'steer', 'verdict', 'result', 'redo']) expect(kinds).toContain(kind)
    const signed = vectors.records.map((entry) => entry.record as Record<string, unknown>)
    expect(signed.some((r) => r.kind === 'goal' && r.approve === 'root')).toBe(true)
    expect(signed.some((r) => r.kind === 'verdict' && r.approve === true)).toBe(true)
    expect(signed.some((r) => r.kind === 'verdict' && r.approve === false)).toBe(true)
    expect(signed.some((r) => r.kind === 'result' && Array.isArray(r.steps))).toBe(true)
  })

  it('§5.12: a redo chain and the roll-ups it and a veto rename, recomputed by hand', () => {
    /** The fields this check reads, as a foreign peer would see them in the JSON. */
    interface Spelled {
      id: string
      kind: string
      goal?: string
      task?: string
      approve?: boolean | string
      retire?: string[]
      subgoals?: { text: string }[]
    }
    const records = vectors.steering.records as unknown as Spelled[]
    const id = (spelled: string) => sha256Hex(spelled).slice(0, 32)
    const q = (text: string) => JSON.stringify(text)
    const nodeOf = (goal: string, proposal: string, index: number, atomic: boolean) => {
      const text = records.find((r) => r.id === proposal)!.subgoals![index]!.text
      return id(`["node",${q(goal)},${q(proposal)},${index},${q(text)},${atomic}]`)
    }
    const execute = (subject: string) => id(`["task","execute",${q(subject)}]`)
    // the leaf's chain: its node id, then each redo naming the current task
    const chainOf = (leaf: string) => {
      const tasks = [{ subject: leaf, id: execute(leaf) }]
      const redos: string[] = []
      for (;;) {
        const redo = records.find((r) => r.kind === 'redo' && r.task === tasks.at(-1)!.id)
        if (!redo) return { tasks, redos }
        redos.push(redo.id)
        tasks.push({ subject: redo.id, id: execute(redo.id) })
      }
    }
    const root = records.find((r) => r.kind === 'goal')!
    expect(root.approve).toBe('root')
    const rootSplit = records.find((r) => r.kind === 'proposal' && r.goal === root.id)!
    const leaf = nodeOf(root.id, rootSplit.id, 0, true)
    const chain = chainOf(leaf)
    const c = vectors.steering.redoChain
    expect(c.leaf).toBe(leaf)
    expect(c.tasks.map((t) => [t.subject, t.id])).toEqual(chain.tasks.map((t) => [t.subject, t.id]))
    expect(c.tasks.map((t) => t.redo)).toEqual([...chain.redos, null])
    expect(c.current).toBe(chain.tasks.at(-1)!.id)
    // the child goal: its vetoed split's proposal is retired, its other split has the leaves
    const child = nodeOf(root.id, rootSplit.id, 1, false)
    expect(vectors.steering.childGoal).toBe(child)
    const veto = records.find((r) => r.kind === 'verdict' && r.goal === child && !r.approve)!
    expect(vectors.steering.vetoed).toBe(veto.id)
    const childSplit = records.find(
      (r) => r.kind === 'proposal' && r.goal === child && !veto.retire!.includes(r.id),
    )!
    const childRedos = [0, 1].flatMap((i) => chainOf(nodeOf(child, childSplit.id, i, true)).redos)
    // renamers: one flat list (the child's veto and redos in the root's), sorted as bytes
    const byBytes = (ids: string[]) =>
      [...ids].sort((a, b) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')))
    const expected = [
      { goal: child, renamers: byBytes([veto.id, ...childRedos]) },
      { goal: root.id, renamers: byBytes([...chain.redos, veto.id, ...childRedos]) },
    ]
    expect(expected[1]!.renamers).toHaveLength(4)
    for (const [i, rollup] of vectors.steering.rollups.entries()) {
      expect(rollup.goal).toBe(expected[i]!.goal)
      expect(rollup.renamers).toEqual(expected[i]!.renamers)
      const input = `["rollup",${[rollup.goal, ...rollup.renamers].map(q).join(',')}]`
      expect(rollup.input).toBe(input)
      expect(rollup.subject).toBe(id(input))
      expect(rollup.task).toBe(id(`["task","rollup",${q(rollup.subject)}]`))
    }
  })

  it('§3.3: every record of the vectors carries the stable room id, never a transport id', () => {
    const room = vectors.members.stableId.id
    const all = [
      ...vectors.records.map((entry) => entry.record),
      ...(vectors.steering.records as WireRecord[]),
      ...(vectors.classification.records as WireRecord[]),
    ]
    for (const record of all) expect(record.room, record.kind).toBe(room)
    expect(room).not.toBe(vectors.room.transportId)
  })

  it('§3.3, §3.4, §5.1 (since version 8): tool groups in presence, a judgement’s group, tool steps', () => {
    const t = vectors.toolGroups
    for (const spelled of [t.presence, t.result]) {
      const record = spelled.record as WireRecord
      expect(validateRecord(record, { room: record.room, sender: record.from }).ok).toBe(true)
      expect(canonicalJson(record)).toBe(spelled.body)
      expect(recordId(record)).toBe(spelled.id)
    }
    for (const record of t.records as WireRecord[])
      expect(validateRecord(record, { room: record.room, sender: record.from }).ok).toBe(true)
    // the group each subgoal needs, recomputed: most named among the cited voters, ties to the better score
    const scores = (t.records as WireRecord[]).filter((r) => r.kind === 'score')
    const byScore = [...scores].sort((a, b) =>
      b.kind === 'score' && a.kind === 'score' ? b.score - a.score : 0,
    )
    for (const slot of t.slots) {
      const named = byScore.map((s) =>
        s.kind === 'score' ? (s.judgements[slot.index]!.tool ?? null) : null,
      )
      const count = (v: string | null) => named.filter((n) => n === v).length
      const most = Math.max(...named.map(count))
      expect(slot.tool).toBe(named.find((n) => count(n) === most))
    }
    expect(t.slots.map((s) => s.tool)).toEqual(['files', null])
    const steps = (t.result.record as { steps: { status: string }[] }).steps
    expect(steps.map((s) => s.status)).toEqual(['ok', 'refused'])
  })

  it('topics', () => {
    expect(roomTopics(vectors.topics.transportId)).toEqual({
      plan: vectors.topics.plan,
      presence: vectors.topics.presence,
    })
  })
})
