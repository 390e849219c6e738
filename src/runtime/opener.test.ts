/** Opening gossip off the main thread: batched, same verdicts as in-process, and a fallback. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeRecord } from '../protocol/codec'
import { makeSigner, sampleRecords } from '../protocol/fixtures.test-support'
import { deriveRoomKey, sealRecord } from '../protocol/room-key'
import {
  authorNamed,
  BatchOpener,
  openSealed,
  openSealedAsync,
  serveOpener,
  type FromOpener,
  type ToOpener,
} from './opener'

const room = deriveRoomKey('test', new Uint8Array(32).fill(7))
const other = deriveRoomKey('test', new Uint8Array(32).fill(8))

async function sealedSamples() {
  const signer = await makeSigner()
  const records = sampleRecords(signer.peerId, room.id)
  return Promise.all(records.map(async (r) => sealRecord(room, await encodeRecord(r, signer))))
}

/** A worker stand-in: answers asynchronously, and counts the messages it got. */
function fakeWorker() {
  const posted: ToOpener[] = []
  const port = {
    onmessage: null as ((event: { data: FromOpener }) => void) | null,
    postMessage(message: ToOpener) {
      // what a real Worker does: a message that cannot be cloned throws
      const copy = structuredClone(message)
      posted.push(copy)
      serve(copy)
    },
  }
  const serve = serveOpener((reply) => setTimeout(() => port.onmessage?.({ data: reply }), 0))
  return { port, posted }
}

describe('gossip opener', () => {
  it('platform crypto (the worker) and pure JS give the same verdict on every flipped byte', async () => {
    const [first] = await sealedSamples()
    const plain = await openSealedAsync(room, first!)
    expect(plain).toEqual(openSealed(room, first!))
    // flip bytes of the signed record inside a valid seal: what a member could send
    const signed = typeof plain === 'string' ? new Uint8Array() : plain.plain
    await fc.assert(
      fc.asyncProperty(
        fc.nat(signed.length - 1),
        fc.integer({ min: 1, max: 255 }),
        async (at, x) => {
          const bad = signed.slice()
          bad[at]! ^= x
          const sealed = sealRecord(room, bad)
          expect(await openSealedAsync(room, sealed)).toEqual(openSealed(room, sealed))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('opens a burst in one batch, with the verdicts of the in-process check', async () => {
    const sealed = await sealedSamples()
    const forged = sealed[0]!.slice()
    forged[forged.length - 1]! ^= 1
    const foreign = sealRecord(other, new Uint8Array(100))
    const all = [...sealed, forged, foreign]
    const { port, posted } = fakeWorker()
    const opener = new BatchOpener(port, room, (bytes) => openSealed(room, bytes))
    const results = await Promise.all(all.map((bytes) => opener.open(bytes)))
    // one init, then the whole burst in a single message
    expect(posted.map((m) => m.type)).toEqual(['init', 'open'])
    expect(results).toEqual(all.map((bytes) => openSealed(room, bytes)))
    expect(results.slice(0, sealed.length).every((r) => typeof r !== 'string')).toBe(true)
    expect(typeof results[sealed.length]).toBe('string')
    expect(typeof results[sealed.length + 1]).toBe('string')
    expect(opener.pending()).toBe(0)
  })

  it("hands the worker a plain copy of the record key, never the secret, even from the app's reactive proxy", async () => {
    const sealed = await sealedSamples()
    const { port, posted } = fakeWorker()
    // the UI keeps the room in reactive state: a Proxy, which structuredClone refuses
    const proxied = new Proxy(room, {})
    expect(() => structuredClone(proxied)).toThrow()
    const opener = new BatchOpener(port, proxied, (bytes) => openSealed(room, bytes))
    expect(typeof (await opener.open(sealed[0]!))).not.toBe('string')
    const init = posted[0]!
    expect(init.type === 'init' && Object.keys(init.room).sort()).toEqual(['id', 'recordKey'])
  })

  it('a failed worker: what it owed and what follows is opened in-process', async () => {
    const sealed = await sealedSamples()
    const silent = { onmessage: null, postMessage: () => {} }
    const opener = new BatchOpener(silent, room, (bytes) => openSealed(room, bytes))
    const owed = opener.open(sealed[0]!)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(opener.pending()).toBe(1)
    opener.fail()
    expect(typeof (await owed)).not.toBe('string')
    expect(typeof (await opener.open(sealed[1]!))).not.toBe('string')
  })

  it('reads the author a sealed record names, and nothing from junk', async () => {
    const signer = await makeSigner()
    const record = sampleRecords(signer.peerId, room.id)[0]!
    const sealed = sealRecord(room, await encodeRecord(record, signer))
    expect(authorNamed(room, sealed)).toBe(signer.peerId)
    expect(authorNamed(other, sealed)).toBeUndefined()
    const junk = [
      new Uint8Array(0),
      new Uint8Array(200).fill(1),
      sealRecord(room, new Uint8Array(3)),
    ]
    junk.push(sealRecord(room, new TextEncoder().encode('\x01' + 'x'.repeat(64) + 'null')))
    junk.push(sealRecord(room, new TextEncoder().encode('\x01' + 'x'.repeat(64) + '{"from":7}')))
    for (const bytes of junk) expect(authorNamed(room, bytes)).toBeUndefined()
  })
})
