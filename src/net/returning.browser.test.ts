import { describe, expect, it } from 'vitest'
import { RETURNING_WITHIN_MS } from './constants'
import { returningTab } from './returning.browser'

/** localStorage's interface over a Map */
function memoryStorage() {
  const items = new Map<string, string>()
  return {
    items,
    get length() {
      return items.size
    },
    key: (i: number) => [...items.keys()][i] ?? null,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
}

describe('returningTab', () => {
  it('a page with the same PeerId that left the room moments ago makes the next one returning', () => {
    const storage = memoryStorage()
    const page = new EventTarget()
    let t = 1_000_000
    const now = () => t
    const first = returningTab('room', 'peer-a', { storage, page, now })
    expect(first.returning).toBe(false)
    page.dispatchEvent(new Event('pagehide')) // the reload
    t += 3_000
    expect(
      returningTab('room', 'peer-a', { storage, page: new EventTarget(), now }).returning,
    ).toBe(true)
    // another PeerId (another tab), or another room, is not
    expect(returningTab('room', 'peer-b', { storage, page, now }).returning).toBe(false)
    expect(returningTab('other', 'peer-a', { storage, page, now }).returning).toBe(false)
  })

  it('is not returning once nobody can hold a stale link any more, and old marks are swept', () => {
    const storage = memoryStorage()
    const page = new EventTarget()
    let t = 1_000_000
    const now = () => t
    returningTab('room', 'peer-a', { storage, page, now })
    page.dispatchEvent(new Event('pagehide'))
    t += RETURNING_WITHIN_MS
    expect(
      returningTab('room', 'peer-a', { storage, page: new EventTarget(), now }).returning,
    ).toBe(false)
    expect([...storage.items.keys()]).toEqual([])
  })

  it('leaves no mark once its node stopped', () => {
    const storage = memoryStorage()
    const page = new EventTarget()
    returningTab('room', 'peer-a', { storage, page }).stop()
    page.dispatchEvent(new Event('pagehide'))
    expect(storage.items.size).toBe(0)
  })
})
