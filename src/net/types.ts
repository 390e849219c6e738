import type { PrivateKey } from '@libp2p/interface'
import type { LinkPath } from './link-paths'
import type { NetLogger } from './log'
import type { DirectCause, Relaying } from './fallback'

export type { NetLogger } from './log'
export type { LinkPath } from './link-paths'
export type { DirectCause, Relaying } from './fallback'

/**
 * The contract between the network layer and the rest of the peer.
 *
 * The network layer knows nothing of the plan protocol: it moves opaque,
 * signed records (bytes) between peers, asks the protocol layer whether each
 * one is valid, and keeps records in sync between peers. The protocol layer
 * (src/protocol) supplies the verdicts; the plan store (src/plan) supplies a
 * RecordStore.
 */

/** What a validator decides about bytes received from the network. */
export type Verdict =
  /** valid and new: deliver it and forward it */
  | 'accept'
  /** invalid (malformed, forged, oversized, wrong sender): drop it and penalise the sender */
  | 'reject'
  /** valid but not worth forwarding (a duplicate, a stale presence beat): drop it quietly */
  | 'ignore'

/**
 * A set of records keyed by content id, as the anti-entropy sync sees it.
 * Ids are lowercase hex strings; records are the exact bytes that were
 * gossiped (signature included), so a peer can forward them verbatim and the
 * receiver can verify them again.
 */
export interface RecordStore {
  /** the ids of every record held */
  ids(): Iterable<string>
  /** the bytes of one record, or undefined when not held */
  get(id: string): Uint8Array | undefined
  /**
   * Ids of records this peer dropped on purpose (archived): sync treats them
   * as held, so they are not fetched again, but never offers them. Optional.
   */
  tombstones?(): Iterable<string>
  /**
   * Verify and add a record received from `from` (a PeerId string) by sync.
   * `expected`, when given, is asked about the record's verified id before it
   * is kept: false (a record nobody asked for) gives 'reject'.
   * Never throws: bad input gives 'reject' (and a log line).
   */
  add(bytes: Uint8Array, from: string, expected?: (id: string) => boolean): Promise<Verdict>
  /**
   * `add` for a batch, one verdict per record in order; optional. Sync hands
   * records over in batches when a store has it, so their checks can run at
   * once (on worker threads) while the next batch is read.
   */
  addMany?(
    batch: readonly Uint8Array[],
    from: string,
    expected?: (id: string) => boolean,
  ): Promise<Verdict[]>
  /** whether a record is held, without reading it (default: get(id) !== undefined) */
  has?(id: string): boolean
  /**
   * A number that changes whenever ids() or tombstones() may have changed;
   * optional. Sync reuses its sorted id set while it stays the same.
   */
  revision?(): number | undefined
}

// ---------------------------------------------------------------------------
// The swarm node: what src/net offers the rest of the peer.
// createSwarmNode comes in two variants with the same SwarmNode result:
//   src/net/node.browser.ts (tabs: WebSockets + circuit relay + WebRTC)
//   src/net/node.node.ts    (headless agents: TCP + WebSockets + circuit
//                            relay + WebRTC via node-datachannel)
// ---------------------------------------------------------------------------

/**
 * Decides about one gossiped message before it is delivered or forwarded.
 * Total: a throw or a rejected promise counts as 'reject' (a promise lets a
 * tab verify in a worker). `from` is the PeerId of
 * the neighbour that forwarded the message (or this peer, for its own):
 * GossipSub messages are unsigned (StrictNoSign), the record inside names and
 * signs its author.
 */
export type GossipValidator = (
  topic: string,
  bytes: Uint8Array,
  from: string,
) => Verdict | Promise<Verdict>

/** A fixed ICE configuration, or where to get the current one. */
export type RtcConfigurationSource = RTCConfiguration | (() => Promise<RTCConfiguration>)

/**
 * The member a PeerId acts for (its room's membership), or undefined while
 * none is known: strikes and bans count per member (strikes.ts). The net
 * layer only asks; the runtime answers from the membership it derives.
 */
export type MemberLookup = (peerId: string) => string | undefined

/** What both variants of createSwarmNode take. */
export interface SwarmNodeInitBase {
  /**
   * The swarm's room: peers only link, gossip and sync with peers of the same
   * room (the relay's discovery is per room; sync refuses another room).
   * Default DEFAULT_ROOM ('lobby', the protocol's). At most MAX_ROOM_BYTES UTF-8 bytes.
   */
  room?: string
  /**
   * Relay multiaddrs, each ending in /p2p/<relayPeerId>
   * (e.g. /ip4/192.168.1.10/tcp/9090/ws/p2p/12D3Koo…). The node keeps a
   * connection and a reservation on each, and discovers its room through
   * them. Default: none (a Node peer can still be dialled directly).
   */
  relays?: string[]
  /** The node's identity. Default: see each variant. */
  privateKey?: PrivateKey
  /** The gossip validator (GossipSub topic validator for every subscribed topic). */
  validate: GossipValidator
  /**
   * Who a message says wrote it, read cheaply and without checking its
   * signature (undefined if it names nobody). Gossip is unsigned
   * (StrictNoSign), so this is how a flood is pinned on a neighbour: of the
   * messages a neighbour sends past its rate limit, those naming it as their
   * author are its strikes. A forged author changes nothing: a message naming
   * the neighbour came over the neighbour's own link. Default: none, and a
   * flood is throttled but never struck.
   */
  authorOf?: (topic: string, bytes: Uint8Array) => string | undefined
  /**
   * The member a PeerId acts for: a ban of one PeerId of a member refuses
   * all of them (and any it binds later), and their strikes add up.
   * Default: none, every PeerId on its own.
   */
  memberOf?: MemberLookup
  /** The records kept in sync with every directly linked peer. */
  store: RecordStore
  /** Default: console, with info/warn/error only. */
  logger?: NetLogger
  /**
   * ICE configuration of every RTCPeerConnection, or a function asked for it
   * at each new one (ice-config.ts: TURN credentials that expire). Default
   * `{ iceServers: [] }`: host candidates only, which is what a LAN needs; no
   * public STUN server is contacted unless you pass one.
   */
  rtcConfiguration?: RtcConfigurationSource
  /** Largest record accepted or published. Default MAX_RECORD_BYTES (256 KiB). */
  maxRecordBytes?: number
  /** Aborting it stops the node (like stop()). */
  signal?: AbortSignal
  /** for tests: QUIET_LINKS_AFTER_MS and SURPLUS_LINK_GRACE_MS (constants.ts say why) */
  quietLinksAfterMs?: number
  surplusLinkGraceMs?: number
}

/** How we are linked to one peer of the room. */
export type LinkKind =
  /** a direct, unlimited WebRTC connection: carries gossip and sync */
  | 'direct-webrtc'
  /** only a limited circuit-relay connection (signalling in progress, or WebRTC failed) */
  | 'relayed'
  /** another direct transport (TCP or WebSockets between Node peers) */
  | 'other'
  /**
   * a limited circuit-relay connection that carries gossip and sync: this
   * peer or that one cannot link directly, and the relay carries their
   * traffic (fallback.ts)
   */
  | 'via-relay'

export interface PeerLink {
  peerId: string
  /** a direct WebRTC link counts once it has carried data both ways */
  kind: LinkKind
  /** how a direct WebRTC link goes (its selected ICE pair), once known (link-paths.ts) */
  path?: LinkPath
}

/** The state of our links, for the UI. */
export interface ConnectionSummary {
  /** 'up' when connected to at least one relay and holding a reservation on it */
  relay: 'up' | 'down'
  relays: Array<{ peerId: string; connected: boolean; reserved: boolean }>
  /** connected peers (relays excluded), best link kind per peer */
  peers: PeerLink[]
  /** counts of `peers` by kind */
  direct: number
  relayed: number
  other: number
  viaRelay: number
  /** peers of the room the relay told us about (linked or not) */
  known: number
  /** the room is quiet: links to ring neighbours only (topology.ts quietAfterMs) */
  quiet: boolean
  /**
   * This peer cannot link directly: why, and whether the relay carries its
   * traffic (`relaying` undefined: no relay answered yet; a relay that
   * predates relaying never does). Absent when it links directly.
   */
  cannotLink?: { cause: DirectCause; relaying?: Relaying }
  /**
   * Peers of the room the relay named as unable to link directly and whose
   * traffic it refuses to carry: in the room, out of reach, and why.
   */
  unreachable: Array<{ peerId: string; cause: DirectCause; relaying: Relaying }>
}

/** What one anti-entropy session did (see sync.ts). */
export interface SyncReport {
  peer: string
  /** true when we opened the stream */
  initiator: boolean
  /** fingerprints matched: nothing exchanged beyond HELLO */
  inSync: boolean
  /** reconciliation messages exchanged (both ways) */
  rounds: number
  /** records sent to the peer */
  sent: number
  /** records received, by the store's verdict */
  accepted: number
  rejected: number
  ignored: number
  /** ids we asked for, and how many of them we still lack at the end */
  wanted: number
  missing: number
  /** differences left for the next session (a per-session budget was reached) */
  deferred: number
  /** frame bytes written and read, length prefixes included */
  bytesOut: number
  bytesIn: number
  ms: number
  /** set when the session failed */
  error?: string
  /** set on a session that resumed one cut by its link's closing: how many in a row */
  resumes?: number
}

export interface SwarmEvents {
  /** links changed (peer joined/left, relay up/down, link upgraded) */
  connections: ConnectionSummary
  /** a sync session ended */
  sync: SyncReport
}

export interface PublishResult {
  /** peers the message was sent to directly (0 is not an error: nobody listens yet) */
  recipients: number
}

export interface SwarmNode {
  /** our PeerId (base58btc string) */
  readonly peerId: string
  readonly room: string
  /**
   * Publishes bytes on a topic. Validates them with our own validator first:
   * 'reject' throws RecordRejectedError, 'ignore' publishes nothing; a record
   * over maxRecordBytes throws RecordTooLargeError. Publishing to a topic
   * nobody listens on is not an error (recipients: 0).
   */
  publish(topic: string, bytes: Uint8Array): Promise<PublishResult>
  /**
   * Subscribes to a topic; `onMessage` gets each accepted message once (the
   * validator ran before), with the neighbour that forwarded it (`from`: not
   * its author, which only the record says). Returns an unsubscribe function. Several handlers
   * per topic are fine. Gossip does not go into the store by itself: the
   * handler decides (the protocol layer adds what it keeps).
   */
  subscribe(topic: string, onMessage: (bytes: Uint8Array, from: string) => void): () => void
  /** Current links. */
  connections(): ConnectionSummary
  /** Listens to an event; returns the function that stops listening. */
  on<E extends keyof SwarmEvents>(event: E, cb: (detail: SwarmEvents[E]) => void): () => void
  /**
   * Runs an anti-entropy session with every directly linked peer now (with
   * `peers`, with that many of them, picked at random). With `enough`,
   * resolves as soon as that many sessions have ended without error (or
   * once all have ended, if fewer succeed), with the reports so far; the
   * others carry on.
   */
  syncNow(options?: { enough?: number; peers?: number }): Promise<SyncReport[]>
  /**
   * Something new happened in the room (the plan layer calls it for each new
   * record, its own included; a peer new to the room list counts too). After
   * QUIET_LINKS_AFTER_MS without either the room is quiet: the node keeps
   * only ring links (dialer.ts) and slows its timers (QUIET_TICK_MS); the
   * next call links it to every neighbour again, at the busy pace.
   */
  roomActive(): void
  /**
   * The plan layer says whether the room's plan is over (every goal settled:
   * plan/archive.ts planOver). Then the room is quiet OVER_ROOM_AFTER_MS
   * after the last activity instead of QUIET_LINKS_AFTER_MS.
   */
  setPlanOver(over: boolean): void
  /** Our listen addresses (with /p2p/<id>), e.g. for a Node peer's log. */
  multiaddrs(): string[]
  /** Stops the node; idempotent. */
  stop(): Promise<void>
}
