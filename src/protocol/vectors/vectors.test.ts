import { createHash, createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../canonical'
import { decodeRecord } from '../codec'
import { contentId, rendezvousOrder, rendezvousWeight } from '../hash'
import { nodeId, taskId } from '../ids'
import { recordId, type WireRecord } from '../records'
import { roomTopics } from '../topics'
import { validateRecord } from '../validate'
import { generateVectors, vectorKey } from './generate'

/** The known answers, as a peer written elsewhere would read them. */
const vectors = JSON.parse(
  readFileSync(new URL('../../../docs/test-vectors.json', import.meta.url), 'utf8'),
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
      const decoded = decodeRecord(new Uint8Array(wire), { room: vectors.topics.room })
      expect(decoded.ok && decoded.record).toEqual(record)
      expect(validateRecord(record, { room: vectors.topics.room }).ok).toBe(true)
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

  it('topics', () => {
    expect(roomTopics(vectors.topics.room)).toEqual({
      plan: vectors.topics.plan,
      presence: vectors.topics.presence,
    })
  })
})
