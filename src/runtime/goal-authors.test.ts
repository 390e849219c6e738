import { afterEach, describe, expect, it, vi } from 'vitest'
import { GoalAuthors, LOCAL_AUTHORS_REFRESH_MS } from './goal-authors'

afterEach(() => vi.useRealTimers())

describe('GoalAuthors', () => {
  it("lists this browser's tabs again every LOCAL_AUTHORS_REFRESH_MS only while it works on their goals", async () => {
    vi.useFakeTimers()
    let listed = 0
    const told: Array<string[] | null> = []
    const authors = new GoalAuthors({
      source: 'anyone',
      peerId: 'me',
      localAuthors: async () => {
        listed++
        return ['tab-b']
      },
      setAuthors: (a) => void told.push(a),
      log: () => {},
    })
    await vi.advanceTimersByTimeAsync(3 * LOCAL_AUTHORS_REFRESH_MS)
    expect(told).toEqual([null])
    expect(listed).toBe(0)
    // no timer at all while it takes anyone's goals: none wakes the page
    expect(vi.getTimerCount()).toBe(0)
    authors.set('this-browser')
    await vi.advanceTimersByTimeAsync(2 * LOCAL_AUTHORS_REFRESH_MS)
    expect(listed).toBe(3)
    expect(told.at(-1)).toEqual(['me', 'tab-b'])
    authors.set('anyone')
    await vi.advanceTimersByTimeAsync(3 * LOCAL_AUTHORS_REFRESH_MS)
    expect(listed).toBe(3)
    expect(told.at(-1)).toBeNull()
    expect(vi.getTimerCount()).toBe(0)
    authors.stop()
  })
})
