/**
 * The length-prefixed frames of a sync session (PROTOCOL.md §7.2: an
 * unsigned varint byte length, then the frame), read and written by us
 * instead of libp2p's lpStream. lpStream reads a frame's length one byte at
 * a time, each byte a read of its own that walks the buffered chunks from
 * the start: a quarter of a late joiner's main thread went there. Here a
 * read takes everything buffered at once and frames are cut out of it; a
 * frame inside one chunk is a view of it, not a copy.
 *
 * FrameReader is pure (it pulls chunks from a function); `frameStream`
 * joins it to a libp2p stream through byteStream, which keeps libp2p's
 * handling of the stream's events, buffer limit and end.
 */
import { byteStream } from '@libp2p/utils'
import type { Stream } from '@libp2p/interface'
import { lpPrefix } from './sync-wire'

/** A frame's length says more than the limit (or its varint runs on): the stream is refused. */
export class FrameTooLongError extends Error {
  override name = 'FrameTooLongError'
}

/** The stream ended in the middle of a frame, or before one. */
export class FrameEndError extends Error {
  override name = 'FrameEndError'
}

/** What a read gets: the next chunks, or null once the stream has ended. */
export type Pull = (signal?: AbortSignal) => Promise<Iterable<Uint8Array> | null>

/** A frame to write: its bytes, or its parts in order (no copy to join them first). */
export type FrameParts = Uint8Array | readonly Uint8Array[]

/** Spent chunks kept at the head of the queue before it is compacted. */
const COMPACT_AFTER_CHUNKS = 64

export class FrameReader {
  /** buffered chunks; those before `head` are spent */
  private chunks: Uint8Array[] = []
  private head = 0
  /** read offset in chunks[head] */
  private at = 0
  /** unread bytes in all chunks */
  private buffered = 0
  /** most bytes a length prefix may take */
  private readonly maxPrefix: number

  constructor(
    private readonly pull: Pull,
    private readonly maxFrameBytes: number,
  ) {
    this.maxPrefix = lpPrefix(maxFrameBytes)
  }

  /** The next frame (without its length). Throws FrameTooLongError or FrameEndError. */
  async read(signal?: AbortSignal): Promise<Uint8Array> {
    for (;;) {
      const length = this.length()
      if (length !== undefined && this.buffered >= length.prefix + length.value) {
        this.skip(length.prefix)
        return this.take(length.value)
      }
      const more = await this.pull(signal)
      if (more === null) {
        throw new FrameEndError(
          this.buffered === 0
            ? 'stream ended'
            : `stream ended inside a frame (${this.buffered} bytes)`,
        )
      }
      for (const chunk of more) {
        if (chunk.length === 0) continue
        this.chunks.push(chunk)
        this.buffered += chunk.length
      }
    }
  }

  /** The length prefix at the read position: its value and size; undefined while incomplete. */
  private length(): { value: number; prefix: number } | undefined {
    let value = 0
    let scale = 1
    let prefix = 0
    for (let c = this.head, o = this.at; c < this.chunks.length; c++, o = 0) {
      const chunk = this.chunks[c] as Uint8Array
      for (; o < chunk.length; o++) {
        const byte = chunk[o] as number
        value += (byte & 0x7f) * scale
        prefix++
        if ((byte & 0x80) === 0) {
          if (value > this.maxFrameBytes) {
            throw new FrameTooLongError(`frame too long: ${value} > ${this.maxFrameBytes} bytes`)
          }
          return { value, prefix }
        }
        if (prefix >= this.maxPrefix) throw new FrameTooLongError('frame length too long')
        scale *= 0x80
      }
    }
    return undefined
  }

  private skip(n: number): void {
    let left = n
    while (left > 0) {
      const chunk = this.chunks[this.head] as Uint8Array
      const step = Math.min(left, chunk.length - this.at)
      this.advance(step, chunk)
      left -= step
    }
  }

  /** The next n bytes: a view when one chunk holds them, else a copy. */
  private take(n: number): Uint8Array {
    if (n === 0) return new Uint8Array(0)
    const first = this.chunks[this.head] as Uint8Array
    if (first.length - this.at >= n) {
      const out = first.subarray(this.at, this.at + n)
      this.advance(n, first)
      return out
    }
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const chunk = this.chunks[this.head] as Uint8Array
      const step = Math.min(n - filled, chunk.length - this.at)
      out.set(chunk.subarray(this.at, this.at + step), filled)
      filled += step
      this.advance(step, chunk)
    }
    return out
  }

  private advance(step: number, chunk: Uint8Array): void {
    this.at += step
    this.buffered -= step
    if (this.at < chunk.length) return
    this.at = 0
    this.head++
    if (this.head === this.chunks.length) {
      this.chunks = []
      this.head = 0
    } else if (this.head >= COMPACT_AFTER_CHUNKS) {
      this.chunks = this.chunks.slice(this.head)
      this.head = 0
    }
  }
}

/** Frames as one buffer: each its varint length, then its bytes. */
export function encodeFrames(frames: readonly FrameParts[]): Uint8Array {
  let total = 0
  const sizes = frames.map((f) => {
    const size = f instanceof Uint8Array ? f.length : f.reduce((s, p) => s + p.length, 0)
    total += lpPrefix(size) + size
    return size
  })
  const out = new Uint8Array(total)
  let o = 0
  frames.forEach((f, i) => {
    for (let v = sizes[i] as number; ; v = Math.floor(v / 0x80)) {
      if (v < 0x80) {
        out[o++] = v
        break
      }
      out[o++] = (v % 0x80) | 0x80
    }
    for (const part of f instanceof Uint8Array ? [f] : f) {
      out.set(part, o)
      o += part.length
    }
  })
  return out
}

export interface FrameStream {
  /** the next frame, without its length */
  read(options?: { signal?: AbortSignal }): Promise<Uint8Array>
  /** writes frames (each length-prefixed) in one send */
  write(frames: readonly FrameParts[], options?: { signal?: AbortSignal }): Promise<void>
}

/** Frames of at most `maxFrameBytes` over a libp2p stream. */
export function frameStream(stream: Stream, maxFrameBytes: number): FrameStream {
  const bytes = byteStream(stream)
  const reader = new FrameReader(async (signal) => {
    // no `bytes` option: everything buffered, or null once the stream ended
    const list = await bytes.read({ signal })
    return list === null ? null : list
  }, maxFrameBytes)
  return {
    read: (options) => reader.read(options?.signal),
    write: async (frames, options) => {
      const scoped = writeSignal(options?.signal)
      try {
        await bytes.write(encodeFrames(frames), { signal: scoped.signal })
      } finally {
        scoped.done()
      }
    },
  }
}

/**
 * A signal for one write that follows the session's. A write that waits for
 * the stream to drain waits through p-event, which adds an abort listener to
 * the signal it is given and never removes it: on the session's own signal
 * a long sync left one per wait (Node's "11 abort listeners" warning), each
 * holding its stream, until the session ended.
 */
function writeSignal(outer: AbortSignal | undefined): { signal?: AbortSignal; done(): void } {
  if (outer === undefined) return { done: () => {} }
  const inner = new AbortController()
  const follow = () => inner.abort(outer.reason)
  if (outer.aborted) follow()
  else outer.addEventListener('abort', follow, { once: true })
  return { signal: inner.signal, done: () => outer.removeEventListener('abort', follow) }
}
