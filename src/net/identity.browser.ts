/**
 * One Ed25519 identity per browser TAB, kept in IndexedDB.
 *
 * A reload must keep the PeerId; two tabs must never share one, not even after
 * "duplicate tab" (which copies sessionStorage). So keys live in a pool of
 * numbered slots in IndexedDB, and a tab holds its slot exclusively for as
 * long as it lives (tab-slots.browser.ts: Web Locks in a secure context, a
 * roll call where there are none, as on a friend's http://<LAN address>):
 * - the tab remembers its slot number in sessionStorage;
 * - on load it takes the remembered slot if it is free (a reload: the old
 *   page let go of it; on a reload we wait a moment for that), otherwise (a
 *   duplicated tab: the original still holds it) another free slot, creating
 *   a key there when the slot is empty.
 */
import { createStore, entries, get, set, type UseStore } from 'idb-keyval'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { IdentityUnavailableError } from './errors'
import { IDENTITY_MAX_SLOTS, tabSlots } from './tab-slots.browser'

export { IDENTITY_MAX_SLOTS }

/** IndexedDB database and object store of the key slots. */
export const IDENTITY_DB = 'murmuration-identity'
export const IDENTITY_STORE = 'keys'

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
  if (typeof indexedDB === 'undefined') {
    throw new IdentityUnavailableError('IndexedDB is not available (a private window?)')
  }
  const sessionKey = `${prefix}-identity-slot`
  const stored = Number.parseInt(sessionStorage.getItem(sessionKey) ?? '', 10)
  const remembered =
    Number.isInteger(stored) && stored >= 0 && stored < IDENTITY_MAX_SLOTS ? stored : undefined
  const store = createStore(`${prefix}-identity`, IDENTITY_STORE)

  const claim = await tabSlots(prefix, store).acquire({ remembered, reload: isReload() })
  if (claim === undefined) {
    throw new IdentityUnavailableError(`all ${IDENTITY_MAX_SLOTS} identity slots are in use`)
  }
  const { slot } = claim
  try {
    const privateKey = await loadOrCreate(store, slot)
    sessionStorage.setItem(sessionKey, String(slot))
    // hand the slot over as soon as the page goes away, so that a reload gets
    // it back at once. A page restored from the back/forward cache has given
    // its slot up: it loads afresh to take one again.
    const onPageHide = () => claim.release()
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) location.reload()
    }
    addEventListener('pagehide', onPageHide)
    addEventListener('pageshow', onPageShow)
    return {
      privateKey,
      slot,
      release: () => {
        removeEventListener('pagehide', onPageHide)
        removeEventListener('pageshow', onPageShow)
        claim.release()
      },
    }
  } catch (err) {
    claim.release()
    throw new IdentityUnavailableError(`IndexedDB: ${(err as Error).message}`)
  }
}

/**
 * The PeerIds of every tab identity this browser keeps (the slots' keys):
 * "this browser's tabs", for a tab that works only on goals written here.
 * A slot is made when a tab first needs one, so callers read this again now
 * and then to see tabs opened since.
 */
export async function browserTabPeerIds(init: TabIdentityInit = {}): Promise<string[]> {
  const prefix = init.prefix ?? 'murmuration'
  const store = createStore(`${prefix}-identity`, IDENTITY_STORE)
  const ids: string[] = []
  for (const [key, bytes] of await entries<IDBValidKey, unknown>(store)) {
    if (typeof key !== 'string' || !/^slot-\d+$/.test(key) || !(bytes instanceof Uint8Array))
      continue
    try {
      ids.push(peerIdFromPrivateKey(privateKeyFromProtobuf(bytes)).toString())
    } catch {
      // a corrupt slot: its tab will replace it with a new key
    }
  }
  return ids.sort()
}
