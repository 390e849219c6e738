/**
 * The other relays `npm start` names to tabs and agents (`--relay`, a list):
 * each given as a multiaddr ending in /p2p/<peerId>, or as the URL of its
 * /relay.json. A URL is read at start and again every OTHER_RELAY_REFRESH_MS
 * (a relay redeployed with a new key or address is picked up); one that
 * cannot be read is retried with backoff, and the relay is left out of
 * /relay.json until it answers, so a relay that is down at start costs
 * nothing but a log line.
 *
 * The syntax checks live in relay-source.ts (light, for options.ts); this
 * module does the reading.
 */
import { backoff } from '../src/net/backoff'
import { errMsg, type NetLogger } from '../src/net/log'
import { fetchRelayInfo, type RelayAddrs } from '../src/net/relay-info'
import { isRelayInfoUrl, peerIdOfAddr } from './relay-source'

/** Re-read a relay's /relay.json this often: relays change rarely, tabs load often. */
export const OTHER_RELAY_REFRESH_MS = 5 * 60_000
/** First retry of a relay whose /relay.json could not be read, and the cap. */
export const OTHER_RELAY_RETRY_INITIAL_MS = 2_000
export const OTHER_RELAY_RETRY_MAX_MS = 60_000

export interface OtherRelaysInit {
  /** `--relay` values: multiaddrs with /p2p/<peerId>, or http(s) URLs of /relay.json */
  sources: string[]
  logger: NetLogger
  /** stops the refreshing */
  signal: AbortSignal
  /** default: fetchRelayInfo (relay-info.ts) */
  fetchInfo?: (url: string, signal: AbortSignal) => Promise<RelayAddrs>
}

export interface OtherRelays {
  /** the relays known now, in the order given; a relay named twice is merged */
  list(): RelayAddrs[]
  /** the /relay.json URLs not read yet */
  waiting(): string[]
  /** resolves once every URL was read once (or failed once): start-up waits for it */
  ready: Promise<void>
}

export function otherRelays(init: OtherRelaysInit): OtherRelays {
  const fetchInfo = init.fetchInfo ?? fetchRelayInfo
  // one slot per source, so the list keeps the order of the command line
  const slots: Array<RelayAddrs | undefined> = init.sources.map((source) => {
    if (isRelayInfoUrl(source)) return undefined
    return { peerId: peerIdOfAddr(source) ?? '', multiaddrs: [source] }
  })

  async function read(index: number, url: string, failures: number): Promise<void> {
    if (init.signal.aborted) return
    let wait: number
    try {
      const info = await fetchInfo(url, init.signal)
      if (slots[index] === undefined)
        init.logger.info('other relay found', { url, relay: info.peerId })
      slots[index] = { peerId: info.peerId, multiaddrs: info.multiaddrs }
      failures = 0
      wait = OTHER_RELAY_REFRESH_MS
    } catch (err) {
      if (init.signal.aborted) return
      failures++
      // logged on the first failure of a run of them, not on every retry
      if (failures === 1) {
        init.logger.warn('other relay unreachable; retrying', { url, error: errMsg(err) })
      }
      wait = backoff(failures, OTHER_RELAY_RETRY_INITIAL_MS, OTHER_RELAY_RETRY_MAX_MS)
    }
    const timer = setTimeout(() => void read(index, url, failures), wait)
    timer.unref?.()
    init.signal.addEventListener('abort', () => clearTimeout(timer), { once: true })
  }

  const ready = Promise.all(
    init.sources.map((source, i) => (isRelayInfoUrl(source) ? read(i, source, 0) : undefined)),
  ).then(() => undefined)

  return {
    ready,
    waiting: () =>
      init.sources.filter((source, i) => slots[i] === undefined && isRelayInfoUrl(source)),
    list() {
      const byId = new Map<string, RelayAddrs>()
      for (const slot of slots) {
        if (slot === undefined) continue
        const known = byId.get(slot.peerId)
        if (known === undefined)
          byId.set(slot.peerId, { ...slot, multiaddrs: [...slot.multiaddrs] })
        else
          for (const m of slot.multiaddrs)
            if (!known.multiaddrs.includes(m)) known.multiaddrs.push(m)
      }
      return [...byId.values()]
    },
  }
}
