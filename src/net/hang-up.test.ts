import { describe, expect, it } from 'vitest'
import { abortLink, closeLink } from './hang-up'

function fakeLink(close: () => Promise<void>) {
  const aborted: Error[] = []
  return {
    aborted,
    link: {
      close,
      abort: (err: Error) => void aborted.push(err),
      remotePeer: { toString: () => 'peer-a' },
    },
  }
}

const settle = () => new Promise((r) => setTimeout(r, 0))

describe('hang-up', () => {
  it('closeLink aborts a link whose graceful close fails or times out, and only that one', async () => {
    const timedOut = fakeLink(() => Promise.reject(new DOMException('timed out', 'TimeoutError')))
    const closed = fakeLink(() => Promise.resolve())
    closeLink(timedOut.link as never)
    closeLink(closed.link as never)
    await settle()
    expect(timedOut.aborted).toHaveLength(1)
    expect(timedOut.aborted[0]!.message).toBe('timed out')
    expect(closed.aborted).toHaveLength(0)
  })

  it('abortLink aborts at once, without waiting for a flush', () => {
    let closes = 0
    const banned = fakeLink(async () => void closes++)
    abortLink(banned.link as never, 'peer banned')
    expect(banned.aborted.map((e) => e.message)).toEqual(['peer banned'])
    expect(closes).toBe(0)
  })
})
