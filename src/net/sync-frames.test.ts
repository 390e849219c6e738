/**
 * sync-frames.ts: frames written by encodeFrames come back from FrameReader
 * byte for byte however the stream cuts them (every cut point, many frames
 * in one chunk), and the reader refuses what lpStream refused: a length over
 * the limit, a length that runs on, a stream that ends inside a frame.
 */
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { streamPair } from '@libp2p/utils'
import { concat, encodeUvarint } from './bytes'
import {
  encodeFrames,
  FrameEndError,
  FrameReader,
  frameStream,
  FrameTooLongError,
  type Pull,
} from './sync-frames'

/** A pull that hands out `chunks` one call at a time, then ends. */
function pullOf(chunks: Uint8Array[]): Pull {
  let i = 0
  return () => Promise.resolve(i < chunks.length ? [chunks[i++] as Uint8Array] : null)
}

const frame = (n: number, fill: number) => new Uint8Array(n).fill(fill)

describe('sync frames', () => {
  it('writes each frame as its varint length, then its bytes (parts joined in order)', () => {
    const a = frame(3, 1)
    const big = frame(300, 2)
    const out = encodeFrames([a, [Uint8Array.of(6), big], new Uint8Array(0)])
    expect(out).toEqual(
      concat([encodeUvarint(3), a, encodeUvarint(301), Uint8Array.of(6), big, encodeUvarint(0)]),
    )
  })

  it('reads frames back whatever the chunks: every cut point, and all in one chunk', async () => {
    const frames = [frame(1, 9), frame(200, 3), frame(0, 0), frame(130, 7), frame(5, 1)]
    const wire = encodeFrames(frames)
    for (let cut = 0; cut <= wire.length; cut++) {
      const reader = new FrameReader(pullOf([wire.subarray(0, cut), wire.subarray(cut)]), 1_000)
      for (const f of frames) expect(await reader.read()).toEqual(f)
      await expect(reader.read()).rejects.toThrow(FrameEndError)
    }
    // one byte a chunk
    const bytes = [...wire].map((b) => Uint8Array.of(b))
    const reader = new FrameReader(pullOf(bytes), 1_000)
    for (const f of frames) expect(await reader.read()).toEqual(f)
  })

  it('gives a frame inside one chunk as a view of it, not a copy', async () => {
    const wire = encodeFrames([frame(10, 4), frame(10, 5)])
    const reader = new FrameReader(pullOf([wire]), 1_000)
    const first = await reader.read()
    expect(first.buffer).toBe(wire.buffer)
    expect(await reader.read()).toEqual(frame(10, 5))
  })

  it('refuses a length over the limit, and a length whose varint runs on', async () => {
    const over = new FrameReader(pullOf([encodeUvarint(1_001)]), 1_000)
    await expect(over.read()).rejects.toThrow(FrameTooLongError)
    await expect(new FrameReader(pullOf([encodeUvarint(1_001)]), 1_000).read()).rejects.toThrow(
      /too long/,
    )
    // 1,000 takes two bytes of varint: a third continuation byte is refused
    const runOn = new FrameReader(pullOf([Uint8Array.of(0x80, 0x80, 0x80)]), 1_000)
    await expect(runOn.read()).rejects.toThrow(/length too long/)
    // exactly the limit is fine
    const max = new FrameReader(pullOf([encodeFrames([frame(1_000, 1)])]), 1_000)
    expect((await max.read()).length).toBe(1_000)
  })

  it('refuses a stream that ends inside a frame', async () => {
    const wire = encodeFrames([frame(50, 1)])
    const reader = new FrameReader(pullOf([wire.subarray(0, 30)]), 1_000)
    await expect(reader.read()).rejects.toThrow(/inside a frame/)
  })

  it('carries frames over a real libp2p stream pair', async () => {
    const [a, b] = await streamPair()
    const out = frameStream(a, 100_000)
    const inn = frameStream(b, 100_000)
    const frames = Array.from({ length: 50 }, (_, i) => frame(i * 97, i))
    await out.write(frames.slice(0, 20))
    await out.write(frames.slice(20))
    for (const f of frames) expect(await inn.read()).toEqual(f)
    // the writer closes: the reader's next read finds the end (b closes too: a's close waits for it)
    const closing = a.close()
    await expect(inn.read()).rejects.toThrow(FrameEndError)
    await b.close()
    await closing
  })

  it("leaves no listener on the session's signal, however often a write waits to drain", async () => {
    // capacity 1: every write that finds a message in flight waits for 'drain'
    const [a, b] = await streamPair({ capacity: 1, delay: 1 })
    const out = frameStream(a, 100_000)
    const inn = frameStream(b, 100_000)
    const session = new AbortController()
    const writes = 40
    const reading = (async () => {
      for (let i = 0; i < writes; i++) await inn.read()
    })()
    for (let i = 0; i < writes; i++) {
      await out.write([frame(1_000, i)], { signal: session.signal })
    }
    await reading
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0)
    // and the session's abort still reaches a write that waits
    const stuck = (async () => {
      for (;;) await out.write([frame(1_000, 0)], { signal: session.signal })
    })()
    session.abort(new Error('session over'))
    await expect(stuck).rejects.toThrow('session over')
    a.abort(new Error('done'))
    b.abort(new Error('done'))
  })
})
