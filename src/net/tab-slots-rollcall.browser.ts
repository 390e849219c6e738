/**
 * Identity slots without Web Locks, for pages that are not a secure context
 * (a friend's tab on http://<LAN address>: browsers remove navigator.locks
 * there, but keep IndexedDB and BroadcastChannel).
 *
 * - Ownership: IndexedDB holds `owner-<slot>` → { owner } beside the keys. A
 *   tab claims a slot by compare-and-set in one readwrite transaction (they
 *   are serialised across tabs): it wins only if the record is still what it
 *   read before asking who is alive. A tab going away clears its record on
 *   `pagehide`; a crash leaves it behind.
 * - Liveness: a roll call on a BroadcastChannel. A tab that holds (or is
 *   claiming) a slot answers "mine" from a tiny worker (tab-slot-keeper) and
 *   from its main thread, so a page busy with a long task still answers. A
 *   record whose owner does not answer belongs to a tab that is gone. A tab
 *   has its slot only once its keeper listens: a worker's start needs its
 *   page's main thread, and a page that hung before its keeper started fell
 *   silent, and a duplicated tab took its slot (CI saw it).
 *
 * Why it is safe: a claim that committed before our snapshot was made by a tab
 * that answers our later roll call while it lives; a claim that commits after
 * our snapshot changes the record, and our compare-and-set fails. Only a
 * holder whose page and worker both stay silent for ROLL_CALL_MS (a hung
 * renderer) can lose its slot, and loads pay the roll call only when the
 * slot they want has a record (a duplicate, a crash, a reload whose previous
 * page did not clear its record in time).
 */
import { getMany, update, type UseStore } from 'idb-keyval'
import type { SlotClaim } from './tab-slots.browser'

/**
 * How long a roll call waits for answers. Keepers answer from their own
 * worker thread within milliseconds; a second leaves room for a 2-core
 * machine under load without making a duplicated tab wait noticeably.
 */
export const ROLL_CALL_MS = 1_000

/** Claims lost to a racing tab before giving up (each retry reads afresh). */
const MAX_CLAIM_ATTEMPTS = 8

/**
 * How long a tab waits for its keeper to listen before it goes on with its
 * main thread alone answering. A keeper started in 50 to 330 ms on an idle
 * machine (a cold worker); a worker that cannot load fails sooner, with an
 * error event, so this bound is only ever met by a machine far overloaded.
 */
export const KEEPER_START_MS = 5_000

type Owner = { owner: string } | null | undefined

type SlotMessage =
  { t: 'who'; from: string } | { t: 'mine'; to: string; slot: number } | { t: 'free'; slot: number }

/** What the keeper worker is told by its page. */
export type KeeperCommand = { channel: string; slot: number } | { release: true }

/** What the keeper tells its page: it now answers roll calls for `listening`. */
export type KeeperReport = { listening: number }

export interface RollCallInit {
  prefix: string
  store: UseStore
  maxSlots: number
  reloadWaitMs: number
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

const ownerKey = (slot: number) => `owner-${slot}`

export function rollCallSlots(init: RollCallInit) {
  const { store, maxSlots } = init
  const channelName = `${init.prefix}-identity-slots`
  const me = randomId()
  const channel = new BroadcastChannel(channelName)
  /** the slot this tab holds or is claiming: answered for in roll calls */
  let held: number | undefined
  const listeners = new Set<(msg: SlotMessage) => void>()
  channel.onmessage = ({ data }: MessageEvent<SlotMessage>) => {
    if (data?.t === 'who' && held !== undefined) {
      channel.postMessage({ t: 'mine', to: data.from, slot: held } satisfies SlotMessage)
    }
    for (const listener of listeners) listener(data)
  }

  /** Slots whose holders answer within ROLL_CALL_MS (or until `until` says stop). */
  const rollCall = (waitMs = ROLL_CALL_MS, until?: (live: Set<number>) => boolean) =>
    new Promise<Set<number>>((resolve) => {
      const live = new Set<number>()
      const done = () => {
        clearTimeout(timer)
        listeners.delete(listener)
        resolve(live)
      }
      const listener = (msg: SlotMessage) => {
        if (msg?.t === 'mine' && msg.to === me && Number.isInteger(msg.slot)) live.add(msg.slot)
        if (until?.(live)) done()
      }
      const timer = setTimeout(done, waitMs)
      listeners.add(listener)
      channel.postMessage({ t: 'who', from: me } satisfies SlotMessage)
    })

  /** Resolves when the slot's holder says it let go (or after waitMs). */
  const freed = (slot: number, waitMs: number) =>
    new Promise<void>((resolve) => {
      const listener = (msg: SlotMessage) => {
        if (msg?.t === 'free' && msg.slot === slot) done()
      }
      const done = () => {
        clearTimeout(timer)
        listeners.delete(listener)
        resolve()
      }
      const timer = setTimeout(done, waitMs)
      listeners.add(listener)
    })

  /** Compare-and-set: takes `slot` if its record is still `expected`. */
  const claim = async (slot: number, expected: Owner): Promise<boolean> => {
    held = slot // answer roll calls for it from now on (see the module comment)
    let won = false
    await update<Owner>(
      ownerKey(slot),
      (current) => {
        won = (current?.owner ?? null) === (expected?.owner ?? null)
        return won ? { owner: me } : current
      },
      store,
    )
    if (!won) held = undefined
    return won
  }

  /** A keeper answering for `slot`, once it listens (undefined: the main thread answers alone). */
  const startKeeper = (slot: number): Promise<Worker | undefined> =>
    new Promise((resolve) => {
      let worker: Worker
      try {
        worker = new Worker(new URL('./tab-slot-keeper.worker.ts', import.meta.url), {
          type: 'module',
          name: 'murmuration-identity-keeper',
        })
      } catch {
        resolve(undefined)
        return
      }
      const settle = (listening: boolean) => {
        clearTimeout(timer)
        worker.onmessage = null
        worker.onerror = null
        resolve(worker) // even unconfirmed: it may yet start, and release terminates it
        if (!listening) console.warn(`identity slot ${slot}: its keeper worker did not start`)
      }
      const timer = setTimeout(() => settle(false), KEEPER_START_MS)
      worker.onmessage = ({ data }: MessageEvent<KeeperReport>) => {
        if (data?.listening === slot) settle(true)
      }
      worker.onerror = () => settle(false)
      worker.postMessage({ channel: channelName, slot } satisfies KeeperCommand)
    })

  const holding = async (slot: number): Promise<SlotClaim> => {
    const keeper = await startKeeper(slot)
    let released = false
    const release = () => {
      if (released) return
      released = true
      held = undefined
      keeper?.postMessage({ release: true } satisfies KeeperCommand)
      keeper?.terminate()
      channel.postMessage({ t: 'free', slot } satisfies SlotMessage)
      // best effort: a page that is going away may not finish this transaction,
      // and then the next claimant finds nobody answering for the record
      void update<Owner>(ownerKey(slot), (c) => (c?.owner === me ? null : c), store).catch(() => {})
    }
    return { slot, release }
  }

  return {
    kind: 'roll-call',
    async acquire({ remembered, reload }: { remembered: number | undefined; reload: boolean }) {
      const all = Array.from({ length: maxSlots }, (_, i) => i)
      for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
        // the snapshot must come before the roll call (see the module comment)
        const owners = await getMany<Owner>(all.map(ownerKey), store)
        const recorded = (slot: number) => (owners[slot] ?? null) !== null
        let live: Set<number> | undefined

        if (remembered !== undefined) {
          let free = !recorded(remembered)
          if (!free) {
            live = await rollCall()
            const deadline = Date.now() + init.reloadWaitMs
            // a reload may run before the previous page has let go
            while (reload && live.has(remembered) && Date.now() < deadline) {
              await freed(remembered, ROLL_CALL_MS)
              live = await rollCall()
            }
            free = !live.has(remembered)
          }
          if (free && (await claim(remembered, owners[remembered]))) return holding(remembered)
          if (free) continue // lost a race: read again
        }

        const unused = all.find((slot) => slot !== remembered && !recorded(slot))
        if (unused !== undefined) {
          if (await claim(unused, undefined)) return holding(unused)
          continue
        }
        // every slot has a record: take one whose owner is gone
        live ??= await rollCall()
        const orphan = all.find((slot) => slot !== remembered && !live.has(slot))
        if (orphan === undefined) return undefined
        if (await claim(orphan, owners[orphan])) return holding(orphan)
      }
      return undefined
    },
  }
}
