/**
 * Writes docs/test-vectors.json: known answers for docs/PROTOCOL.md, computed
 * by this implementation, so that a peer written elsewhere can check itself
 * and this one cannot drift unnoticed (vectors.test.ts regenerates them and
 * compares).
 *
 *     npm run vectors
 *
 * Run it on a deliberate protocol change (a version bump, a new field) and
 * commit the file with the change.
 */
import { createPrivateKey, createPublicKey, sign } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { format, resolveConfig } from 'prettier'
import { encodeHello, encodeMessage } from '../../src/net/sync-wire'
import { encodeUvarint } from '../../src/net/bytes'
import { SYNC_PROTOCOL } from '../../src/net/constants'
import { IdSet, initialMessage, SYNC_PARAMS } from '../../src/protocol/reconcile'
import { deriveRoomKey, encodeSecret, sealRecord, stableRoomId } from '../../src/protocol/room-key'
import { deriveMemberKey } from '../../src/protocol/member-key'
import { PROTOCOL_VERSION } from '../../src/protocol/schemas'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { publicKeyFromRaw } from '@libp2p/crypto/keys'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import { canonicalJson } from '../../src/protocol/canonical'
import { SIGNING_PREFIX, WIRE_FORMAT } from '../../src/protocol/codec'
import { contentId, rendezvousOrder, rendezvousWeight } from '../../src/protocol/hash'
import { nodeId, taskId } from '../../src/protocol/ids'
import { memberVectors, VECTOR_MEMBER_SEEDS } from './members'
import { removalVectors } from './removal'
import { memberSteeringVectors } from './member-steering'
import {
  newRedo,
  stamp,
  type ClaimRecord,
  type FailureRecord,
  type GoalRecord,
} from '../../src/protocol/records'
import { roomTopics } from '../../src/protocol/topics'
import { syncFrameVectors } from './sync-frames'
import { steeringVectors } from './steering'
import { classificationVectors } from './classification'
import { toolGroupVectors } from './tool-groups'
import { GOSSIP_LIMITS, messageCost, RateLimiter } from '../../src/net/rate-limit'

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** The fixed key of the vectors: seed bytes 0x00, 0x01, … 0x1f. Never use it for anything else. */
export function vectorKey() {
  const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i))
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const raw = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url')
  const peerId = peerIdFromPublicKey(publicKeyFromRaw(raw)).toString()
  return { seed, key, publicKey: raw, peerId }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const utf8 = (text: string) => new TextEncoder().encode(text)

/** The room of the vectors: a fixed secret (bytes 0x00 … 0x0f). Never use it for anything else. */
export const VECTOR_ROOM = { name: 'lobby', secret: Uint8Array.from({ length: 16 }, (_, i) => i) }
/** The nonce the sealing vector uses (a real seal draws 24 random bytes). */
const VECTOR_NONCE = Uint8Array.from({ length: 24 }, (_, i) => 0x40 + i)

export function generateVectors() {
  const { seed, key, publicKey, peerId } = vectorKey()
  const canonicalValues: unknown[] = [
    { b: 1, a: [true, false, null], A: 'x' },
    { é: 1, z: 2, Z: 3, '10': 4, '9': 5, '': 6 },
    { '😀': 1, '\uffff': 2 },
    [0, -0, 1.5, -2, 1e21, 123456789012345, 0.1],
    // below 1e-6 a number takes an exponent too (a score may be that small)
    [0.000001, 0.0000001, 5e-324, 0.6, 1],
    'quote " backslash \\ newline \n tab \t nul \u0000 line-sep \u2028 é 😀',
    { nested: { y: [{ b: 2, a: 1 }], x: {} } },
  ]
  const canonical = canonicalValues.map((value) => ({ value, canonical: canonicalJson(value) }))
  const ids = [['node', 'a', 0, 'text', true], { kind: 'example' }, 'hello'].map((value) => ({
    value,
    canonical: canonicalJson(value),
    sha256: bytesToHex(sha256(new TextEncoder().encode(canonicalJson(value)))),
    id: contentId(value),
  }))
  const roomKey = deriveRoomKey(VECTOR_ROOM.name, VECTOR_ROOM.secret)
  // what the wire names an epoch by (§0: topics, sealing, sync HELLO)
  const transport = roomKey.id
  // what records carry (§3.3): the stable room id of the vectors' room and owner
  const room = stableRoomId(VECTOR_ROOM.name, deriveMemberKey(VECTOR_MEMBER_SEEDS.owner).id)
  const goal = stamp<GoalRecord>({
    kind: 'goal',
    room,
    from: peerId,
    text: 'Plan a two-week trip to Japan',
    createdAt: 1_700_000_000_000,
    maxDepth: 3,
  })
  const proposal = contentId(['example proposal'])
  const node = nodeId(goal.id, proposal, 1, 'Book the flights', true)
  const tasks = [
    { type: 'decide' as const, subject: goal.id },
    { type: 'execute' as const, subject: node },
    { type: 'rollup' as const, subject: goal.id },
  ].map((task) => ({ ...task, id: taskId(task.type, task.subject) }))
  const claim = stamp<ClaimRecord>({
    kind: 'claim',
    room,
    from: peerId,
    task: tasks[1]!.id,
    taskType: 'execute',
    subject: node,
    epoch: 0,
    at: 1_700_000_001_000,
  })
  const failure = stamp<FailureRecord>({
    kind: 'failure',
    room,
    from: peerId,
    subject: tasks[1]!.id,
    stage: 'execute',
    epoch: 0,
    index: -1,
    errorKind: 'rate-limit',
    detail: 'the LLM provider is rate limiting (3 attempts)',
    usage: { provider: 'openai', model: 'gpt-4o', inputTokens: 0, outputTokens: 0, offline: false },
  })
  // the author sends the failed leaf back with a note (§5.12): its next task's subject is this id
  const redo = newRedo(room, peerId, tasks[1]!.id, 'Use metric units', 1_700_000_002_000)
  // §5.12: the author steers a plan (a second scorer votes, as an accept needs two)
  const steering = steeringVectors(
    room,
    peerId,
    '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
  )
  const s = steering.signed
  const wires: Uint8Array[] = []
  // goal.approve, steer, verdict (approve, veto), result.steps and a redo chain: signed too
  const signed = [s.root, s.steer, s.approval, s.veto, s.result, s.redo1, s.redo2]
  const records = [goal, claim, failure, redo, ...signed].map((record) => {
    const body = new TextEncoder().encode(canonicalJson(record))
    const signingInput = Buffer.concat([SIGNING_PREFIX, body])
    const signature = sign(null, signingInput, key)
    const wire = Buffer.concat([Buffer.from([WIRE_FORMAT]), signature, body])
    wires.push(wire)
    return {
      record,
      body: canonicalJson(record),
      id: record.id,
      signingInput: hex(signingInput),
      signature: hex(signature),
      wire: hex(wire),
    }
  })
  const associatedData = Buffer.concat([Buffer.from('murmuration/sealed/2\n'), utf8(transport)])
  const sealed = sealRecord(roomKey, wires[0]!, () => VECTOR_NONCE)
  // §7: fingerprints of id lists, and the frames of a session's start
  const recordIds = [goal.id, claim.id, failure.id].sort()
  const fingerprints = [[], [recordIds[0]!], recordIds].map((ids) => {
    const set = new IdSet(ids)
    return {
      ids,
      input: hex(
        Buffer.concat([
          encodeUvarint(ids.length),
          ...ids.map((id) => Buffer.concat([Buffer.from([id.length / 2]), Buffer.from(id, 'hex')])),
        ]),
      ),
      fingerprint: hex(set.fingerprintAll()),
    }
  })
  const set = new IdSet(recordIds)
  const hello = encodeHello({ room: transport, count: set.size, fingerprint: set.fingerprintAll() })
  const [ranges] = encodeMessage(initialMessage(set, SYNC_PARAMS), 64 * 1024)
  const onWire = (frame: Uint8Array) => hex(Buffer.concat([encodeUvarint(frame.length), frame]))
  const peers = [
    peerId,
    '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
    '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN',
    '12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo',
  ]
  const rendezvous = [goal.id, tasks[1]!.id, `watch:${tasks[1]!.id}`].map((subject) => ({
    subject,
    weights: Object.fromEntries(peers.map((peer) => [peer, rendezvousWeight(subject, peer)])),
    order: rendezvousOrder(subject, peers),
  }))
  const topics = roomTopics(transport)
  // §2: what a neighbour's messages cost, and a burst of the largest against a full bucket
  const largest = 256 * 1024 + 65 + 41
  const bucket = new RateLimiter()
  let passed = 0
  for (let i = 0; i < 36; i++) if (bucket.take('neighbour', messageCost(largest), 0)) passed++
  const gossipBucket = {
    about:
      '§2: cost = 1 + floor(bytes / bytesPerToken); a bucket starts full, refills continuously (fractions kept) up to capacity; a message passes when the bucket holds its cost',
    ...GOSSIP_LIMITS,
    costs: [700, 16_383, 16_384, largest].map((bytes) => ({ bytes, cost: messageCost(bytes) })),
    burst: {
      bytes: largest,
      sent: 36,
      passed,
      left: bucket.tokens('neighbour', 0),
      after200ms: bucket.tokens('neighbour', 200),
    },
  }
  return {
    about:
      `Known answers for docs/PROTOCOL.md: records v${PROTOCOL_VERSION}, topics ` +
      `${topics.plan.split('/').slice(0, 2).join('/')}/…, sync ${SYNC_PROTOCOL}. ` +
      'Generated by test/vectors/generate.ts (npm run vectors); ' +
      'checked by test/vectors/vectors.test.ts.',
    room: {
      about:
        '§0: HKDF-SHA256, input key = the secret (the invite key base64url-decoded), salt and info UTF-8',
      name: VECTOR_ROOM.name,
      secret: hex(VECTOR_ROOM.secret),
      inviteKey: encodeSecret(VECTOR_ROOM.secret),
      salt: 'murmuration/room/2',
      transportIdInfo: `room-id\n${VECTOR_ROOM.name}`,
      transportId: transport,
      recordKeyInfo: `record-key\n${VECTOR_ROOM.name}`,
      recordKey: hex(roomKey.recordKey),
    },
    sealed: {
      about:
        '§0: XChaCha20-Poly1305 of records[0].wire under room.recordKey; associated data = "murmuration/sealed/2\\n" ‖ the transport id as UTF-8 hex text',
      plain: hex(wires[0]!),
      nonce: hex(VECTOR_NONCE),
      associatedData: hex(associatedData),
      sealed: hex(sealed),
    },
    key: {
      about: 'Ed25519 key from a fixed 32-byte seed (RFC 8032); for these vectors only',
      seed: hex(seed),
      publicKey: hex(publicKey),
      peerId,
    },
    signingPrefix: new TextDecoder().decode(SIGNING_PREFIX),
    topics: { transportId: transport, ...topics },
    gossipBucket,
    canonical,
    contentIds: ids,
    nodeId: {
      goal: goal.id,
      proposal,
      index: 1,
      text: 'Book the flights',
      atomic: true,
      id: node,
    },
    taskIds: tasks,
    members: memberVectors(VECTOR_ROOM, key, peerId),
    // §0.1 (since version 8): a removal's kept, and what a removed co-owner writes after it
    removal: removalVectors(VECTOR_ROOM.name, {
      owner: peerId,
      guest: '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
      guestTab: '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN',
      puppet: '12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo',
    }),
    records,
    rendezvous,
    steering: steering.vector,
    // §5.10 (since version 7): the root's author steers from any PeerId of its member
    memberSteering: memberSteeringVectors(VECTOR_ROOM.name, {
      owner1: peerId,
      owner2: '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
      guest: '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN',
    }),
    // §5.1 (since version 7): an accepted split classified by its voters' judgements
    classification: classificationVectors(room, peerId, [
      peerId,
      '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
      '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN',
    ]),
    // §3.3, §3.4, §5.1, §5.4 (since version 8): tool groups, a leaf that needs one, tool steps
    toolGroups: toolGroupVectors(room, peerId, [
      '12D3KooWGzh9h1oUqPixbMU3hS6jCeLBVBHnRDEpNv1mtx3PDmF8',
      '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN',
    ]),
    sync: {
      about:
        '§7: fingerprint = first 16 bytes of SHA-256(input); frames as sent: uvarint length ‖ type ‖ body',
      fingerprints,
      hello: {
        room: transport,
        count: set.size,
        fingerprint: hex(set.fingerprintAll()),
        frame: hex(hello),
        onWire: onWire(hello),
      },
      firstMessage: {
        about:
          'the opener’s first message for these ids: one idlist range (held ids, no archived ids)',
        ids: recordIds,
        ranges: onWire(ranges!),
        roundEnd: onWire(Uint8Array.of(0x03)),
      },
      frames: syncFrameVectors(sealed),
    },
  }
}

/** Where the vectors live, formatted as the repository formats JSON. */
export const VECTORS_FILE = fileURLToPath(new URL('../../docs/test-vectors.json', import.meta.url))

export async function vectorsJson(): Promise<string> {
  const options = (await resolveConfig(VECTORS_FILE)) ?? {}
  return format(JSON.stringify(generateVectors()), { ...options, filepath: VECTORS_FILE })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(VECTORS_FILE, await vectorsJson())
  console.log(`wrote ${VECTORS_FILE}`)
}
