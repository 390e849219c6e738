/**
 * Which numbered identity slot this tab may use (identity.browser.ts keeps one
 * Ed25519 key per slot). Two ways to guard a slot, with the same guarantees:
 * a reload gets its slot back, a duplicated tab gets another, two open tabs
 * never hold the same one, and a crashed tab's slot comes free.
 *
 * - Web Locks, where the page is a secure context: the browser releases a
 *   lock when its holder goes away, however it goes.
 * - A roll call (tab-slots-rollcall.browser.ts) where it is not: a page
 *   served from a LAN address over plain http has no navigator.locks.
 */
import type { UseStore } from 'idb-keyval'
import { rollCallSlots } from './tab-slots-rollcall.browser'

/** More concurrent tabs than anyone opens in one browser profile. */
export const IDENTITY_MAX_SLOTS = 256

/**
 * On a reload the previous page gives its slot up while it unloads (at once
 * on `pagehide`; at the latest when its document is destroyed, which on a
 * busy machine was seen to take more than 3 s); the new page may run first.
 * Waiting up to this long for the remembered slot on a reload keeps the
 * PeerId; other loads (duplicates, new tabs) do not wait.
 */
export const IDENTITY_RELOAD_WAIT_MS = 15_000

export interface SlotClaim {
  slot: number
  /** gives the slot up (the page going away does it too) */
  release(): void
}

export interface AcquireSlotInit {
  /** the slot this tab had before (sessionStorage), if any */
  remembered: number | undefined
  /** this load is a reload: wait for the previous page to let go of `remembered` */
  reload: boolean
}

export interface TabSlots {
  /** 'web-locks' or 'roll-call', for logs and tests */
  readonly kind: string
  /** a slot this tab now holds exclusively, or undefined when all are held */
  acquire(init: AcquireSlotInit): Promise<SlotClaim | undefined>
}

/** The best guard this page offers. `store` holds the keys (and the roll call's owner records). */
export function tabSlots(prefix: string, store: UseStore): TabSlots {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks
  return locks !== undefined
    ? webLockSlots(prefix, locks)
    : rollCallSlots({
        prefix,
        store,
        maxSlots: IDENTITY_MAX_SLOTS,
        reloadWaitMs: IDENTITY_RELOAD_WAIT_MS,
      })
}

type Release = () => void

function webLockSlots(prefix: string, locks: LockManager): TabSlots {
  const name = (slot: number) => `${prefix}-identity-${slot}`

  /**
   * Takes the lock `name` and keeps it until the returned function is called.
   * Resolves to undefined when the lock is held elsewhere (or, with waitMs, is
   * not released within it).
   */
  const take = (lock: string, waitMs = 0): Promise<Release | undefined> =>
    new Promise((resolve, reject) => {
      let release: Release = () => {}
      const held = new Promise<void>((r) => (release = r))
      const granted = (l: Lock | null) => {
        if (l === null) {
          resolve(undefined)
          return undefined
        }
        resolve(release)
        return held
      }
      const options: LockOptions =
        waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true }
      locks.request(lock, options, granted).catch((err: unknown) => {
        // a wait that ran out (AbortSignal.timeout aborts with a TimeoutError) just means "not free"
        const gaveUp =
          err instanceof DOMException && (err.name === 'AbortError' || err.name === 'TimeoutError')
        if (gaveUp) resolve(undefined)
        else reject(err)
      })
    })

  return {
    kind: 'web-locks',
    async acquire({ remembered, reload }) {
      if (remembered !== undefined) {
        const release = await take(name(remembered), reload ? IDENTITY_RELOAD_WAIT_MS : 0)
        if (release !== undefined) return { slot: remembered, release }
      }
      for (let slot = 0; slot < IDENTITY_MAX_SLOTS; slot++) {
        if (slot === remembered) continue
        const release = await take(name(slot))
        if (release !== undefined) return { slot, release }
      }
      return undefined
    },
  }
}
