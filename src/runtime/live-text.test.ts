import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LIVE_TEXT_INTERVAL_MS, LiveTextFeed, type LiveText } from './live-text'

const CALL = { id: 'execute:t1:0', kind: 'execute' as const, task: 't1', goal: 'g1' }

describe('LiveTextFeed', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('posts at most one snapshot per interval, however many deltas arrive', () => {
    const posts: LiveText[][] = []
    const feed = new LiveTextFeed((live) => posts.push(live))
    feed.start(CALL)
    for (const piece of ['{"out', 'put": "# Mus', 'eums\\n- Gulb', 'enkian"}'])
      feed.text(CALL.id, piece, 1)
    expect(posts).toEqual([])
    vi.advanceTimersByTime(LIVE_TEXT_INTERVAL_MS)
    expect(posts).toHaveLength(1)
    expect(posts[0]).toMatchObject([{ ...CALL, attempt: 1, text: '# Museums\n- Gulbenkian' }])
    vi.advanceTimersByTime(10 * LIVE_TEXT_INTERVAL_MS)
    expect(posts).toHaveLength(1) // nothing changed: nothing posted
  })

  it('starts the text again for a retry, and drops a call that ended', () => {
    const posts: LiveText[][] = []
    const feed = new LiveTextFeed((live) => posts.push(live))
    feed.start(CALL)
    feed.text(CALL.id, 'first try', 1)
    feed.text(CALL.id, 'second', 2)
    vi.advanceTimersByTime(LIVE_TEXT_INTERVAL_MS)
    expect(posts.at(-1)).toMatchObject([{ attempt: 2, text: 'second', chars: 6 }])
    feed.end(CALL.id)
    feed.text(CALL.id, 'late', 2) // after the end: ignored
    vi.advanceTimersByTime(LIVE_TEXT_INTERVAL_MS)
    expect(posts.at(-1)).toEqual([])
  })

  it('stops posting once stopped', () => {
    const posts: LiveText[][] = []
    const feed = new LiveTextFeed((live) => posts.push(live))
    feed.start(CALL)
    feed.stop()
    vi.advanceTimersByTime(LIVE_TEXT_INTERVAL_MS)
    expect(posts).toEqual([])
  })
})
