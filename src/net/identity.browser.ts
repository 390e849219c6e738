/**
 * One Ed25519 identity per browser TAB, kept in IndexedDB.
 *
 * A reload must keep the PeerId; two tabs must never share one, not even after
 * "duplicate tab" (which copies sessionStorage). So keys live in a pool of
 * numbered slots in IndexedDB, and a tab holds an exclusive Web Lock on its
 * slot for as long as it lives:
 * - the tab remembers its slot number in sessionStorage;
 * - on load it takes the remembered slot if that lock is free (a reload: the
 *   old page released it; on a reload we wait a moment for the release),
 *   otherwise (a duplicated tab: the original still holds it) the lowest free
 *   slot, creating a key there when the slot is empty.
 */
import { createStore, get, set, type UseStore } from 'idb-keyval'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { IdentityUnavailableError } from './errors'

/** IndexedDB database and object store of the key slots. */
export const IDENTITY_DB = 'murmuration-identity'
export const IDENTITY_STORE = 'keys'

/** More concurrent tabs than anyone opens in one browser profile. */
export const IDENTITY_MAX_SLOTS = 256

/**
 * On a reload the previous page releases its lock while it unloads (at once
 * on `pagehide`, see below; at the latest when its document is destroyed,
 * which on a busy machine was seen to take more than 3 s); the new page may
 * run first. Waiting up to this long for the remembered slot on a reload keeps
 * the PeerId; other loads (duplicates, new tabs) do not wait.
 */
export const IDENTITY_RELOAD_WAIT_MS = 15_000

export interface TabIdentityInit {
  /** namespaces the slots, locks and sessionStorage key; default 'murmuration' */
  prefix?: string
}

export interface TabIdentity {
  privateKey: PrivateKey
  slot: number
  /** releases the slot's lock (the page unloading does it too) */
  release(): void
}

type Release = () => void

function lockName(prefix: string, slot: number): string {
  return `${prefix}-identity-${slot}`
}

/**
 * Takes the lock `name` and keeps it until the returned function is called.
 * Resolves to undefined when the lock is held elsewhere (or, with waitMs, is
 * not released within it).
 */
function takeLock(name: string, waitMs = 0): Promise<Release | undefined> {
  return new Promise((resolve, reject) => {
    let release: Release = () => {}
    const held = new Promise<void>((r) => (release = r))
    const granted = (lock: Lock | null) => {
      if (lock === null) {
        resolve(undefined)
        return undefined
      }
      resolve(release)
      return held
    }
    const done = (p: Promise<unknown>) =>
      p.catch((err: unknown) => {
        // a wait that ran out (AbortSignal.timeout aborts with a TimeoutError) just means "not free"
        const gaveUp =
          err instanceof DOMException && (err.name === 'AbortError' || err.name === 'TimeoutError')
        if (gaveUp) resolve(undefined)
        else reject(err)
      })
    if (waitMs > 0) {
      done(navigator.locks.request(name, { signal: AbortSignal.timeout(waitMs) }, granted))
    } else {
      done(navigator.locks.request(name, { ifAvailable: true }, granted))
    }
  })
}

function isReload(): boolean {
  const nav = performance.getEntriesByType('navigation')[0] as
    PerformanceNavigationTiming | undefined
  return nav?.type === 'reload'
}

async function loadOrCreate(store: UseStore, slot: number): Promise<PrivateKey> {
  const bytes = await get<Uint8Array>(`slot-${slot}`, store)
  if (bytes instanceof Uint8Array) {
    try {
      return privateKeyFromProtobuf(bytes)
    } catch {
      // a corrupt slot is replaced below
    }
  }
  const key = await generateKeyPair('Ed25519')
  await set(`slot-${slot}`, privateKeyToProtobuf(key), store)
  return key
}

/** Acquires this tab's identity (see the module comment). */
export async function acquireTabIdentity(init: TabIdentityInit = {}): Promise<TabIdentity> {
  const prefix = init.prefix ?? 'murmuration'
  if (typeof navigator === 'undefined' || navigator.locks === undefined) {
    throw new IdentityUnavailableError('Web Locks are not available')
  }
  const sessionKey = `${prefix}-identity-slot`
  const remembered = Number.parseInt(sessionStorage.getItem(sessionKey) ?? '', 10)
  const store = createStore(`${prefix}-identity`, IDENTITY_STORE)

  let slot = -1
  let release: Release | undefined
  if (Number.isInteger(remembered) && remembered >= 0 && remembered < IDENTITY_MAX_SLOTS) {
    release = await takeLock(lockName(prefix, remembered), isReload() ? IDENTITY_RELOAD_WAIT_MS : 0)
    if (release !== undefined) slot = remembered
  }
  for (let s = 0; release === undefined && s < IDENTITY_MAX_SLOTS; s++) {
    if (s === remembered) continue
    release = await takeLock(lockName(prefix, s))
    if (release !== undefined) slot = s
  }
  if (release === undefined) {
    throw new IdentityUnavailableError(`all ${IDENTITY_MAX_SLOTS} identity slots are in use`)
  }
  try {
    const privateKey = await loadOrCreate(store, slot)
    sessionStorage.setItem(sessionKey, String(slot))
    // hand the slot over as soon as the page goes away for good, so that a
    // reload gets it back at once; a page kept in the back/forward cache keeps it
    const onPageHide = (event: PageTransitionEvent) => {
      if (!event.persisted) release()
    }
    addEventListener('pagehide', onPageHide)
    return {
      privateKey,
      slot,
      release: () => {
        removeEventListener('pagehide', onPageHide)
        release()
      },
    }
  } catch (err) {
    release()
    throw new IdentityUnavailableError(`IndexedDB: ${(err as Error).message}`)
  }
}
