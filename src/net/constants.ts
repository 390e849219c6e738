/**
 * Every tunable of the network layer, with the reason for its value.
 *
 * The swarm is small (a handful to a few dozen peers, mostly browser tabs on
 * one LAN behind one relay), latency matters more than bandwidth, and every
 * peer may be hostile: each limit below bounds what one peer can make us do.
 */
import { MAX_RECORD_BYTES } from '../protocol/limits'

/** Protocol ids. Versioned so a future change can run beside the old one. */
export const DISCOVER_PROTOCOL = '/murmuration/discover/1.0.0'
export const SYNC_PROTOCOL = '/murmuration/sync/7.0.0'

export {
  SYNC_BRANCHING,
  SYNC_IDLIST_THRESHOLD,
  SYNC_MAX_IDS_PER_RANGE,
  SYNC_MAX_MESSAGE_RANGES,
  SYNC_MAX_WANT_PER_SESSION,
} from '../protocol/reconcile'

/**
 * The room a bare swarm node (tests, the network harness) joins when it is
 * given none. The app never relies on it: its rooms are invite ids.
 */
export const DEFAULT_ROOM = 'lobby'

/**
 * Longest room name accepted on the wire (UTF-8 bytes). Rooms come from share
 * URLs; 128 bytes fits any human-made name and a hash-derived one.
 */
export const MAX_ROOM_BYTES = 128

/**
 * Largest record (gossip message data, or one record in sync): the
 * protocol's limit (src/protocol/limits.ts says why 256 KiB).
 */
export { MAX_RECORD_BYTES }

/**
 * GossipSub heartbeat: paces mesh maintenance (grafting a newly linked
 * peer), IHAVE gossip and backoffs. 500 ms once halved the time from a new
 * link to the first message over it (50–115 ms against 110–185 ms, three
 * Node peers on loopback), but every heartbeat sends IHAVE gossip to lazy
 * peers: at 32 peers on two cores that control traffic was part of what
 * saturated the CPU. The library's default, 1 s, then.
 */
export const GOSSIP_HEARTBEAT_MS = 1_000

/**
 * GossipSub mesh degree (D, with its bounds Dlo/Dhi and Dlazy, the peers sent
 * IHAVE gossip each heartbeat). Every peer receives each message about D
 * times (once per mesh neighbour), so D is what multiplies the per-message
 * CPU. Our links (topology.ts) keep paths short; a mesh of 4 of them still
 * reaches every peer in a few hops, with anti-entropy (§7) repairing what
 * gossip loses. The library's 6/4/12/6 cost ~30% more CPU at 32 peers for
 * no faster delivery.
 */
export const GOSSIP_MESH = { D: 4, Dlo: 3, Dhi: 8, Dlazy: 3 } as const

/** GossipSub sends IDONTWANT only for messages at least this big (gossip.ts says why). */
export const IDONTWANT_MIN_BYTES = 16 * 1024

/**
 * How long the seen-message cache remembers ids (so a duplicate is dropped
 * quietly). Two minutes covers any gossip round trip in a LAN swarm many
 * times over; the store deduplicates for longer anyway.
 */
export const GOSSIP_SEEN_TTL_MS = 120_000

/** Backoff before re-dialing a peer whose dial failed: first, and cap. */
export const DIAL_BACKOFF_INITIAL_MS = 500
export const DIAL_BACKOFF_MAX_MS = 15_000

/**
 * How often the dialer re-checks the room for peers without a direct link
 * (peer:discovery does not fire again for known peers, and a dial may fail
 * silently). Cheap: it only walks a small map.
 */
export const DIAL_RECHECK_MS = 1_000

/**
 * One side of each pair dials (the lower PeerId), otherwise both dial at once
 * and most pairs end with two WebRTC connections. If the pair is still not
 * linked this long after the higher peer first saw the lower one (the lower
 * peer is slow, buggy or lost its discovery stream), the higher peer dials
 * too.
 */
export const DIAL_FALLBACK_AFTER_MS = 8_000
/**
 * An agent whose turn it is to dial a tab, and that listens on a WebSocket
 * the tab may reach, leaves the dial to the tab this long first (dialer.ts):
 * the tab dials within moments of learning our address from identify, and
 * a link over WebSocket spares both ends WebRTC's timers. A tab that cannot
 * (another machine's) costs the pair this much link-up time; one slower
 * than this (a busy machine) a second link, over WebRTC.
 */
export const TAB_DIAL_WAIT_MS = 1_500
/**
 * A returning peer (a reloaded tab: returning.browser.ts) waits only this
 * long for a lower peer to dial it while nothing from that peer is under
 * way: no link of any kind, not even the relayed one that a WebRTC dial's
 * signalling opens first, within half a second on a LAN. The lower peer
 * most likely still holds its link to our previous page, which it takes
 * for live until a ping catches it (up to 15 s), and so dials nobody; our
 * dial shows it that link is stale (relink.ts). Only for a returning peer:
 * in a room that is forming on a loaded machine, a lower peer often takes
 * longer than this to begin, and every peer dialling after 3 s made the
 * pairs linked twice four times as many in the 64-peer-plus-tabs bench
 * (102 against 26 and 37).
 */
export const RETURNING_DIAL_AFTER_MS = 2_000
/**
 * A tab that was online in the room under its PeerId less than this long
 * ago is returning: longer than any peer's ping timeout (15 s in a tab,
 * 30 s on Node), after which nobody holds a stale link to it.
 */
export const RETURNING_WITHIN_MS = 60_000

/**
 * Direct links each peer aims for in a room of up to BIG_ROOM_PEERS (see
 * topology.ts). Ten keeps rooms of up to eleven peers a full mesh (every
 * test and most real rooms), is well above GossipSub's mesh degree (D = 4),
 * and bounds what one tab spends on WebRTC links.
 */
export const DIRECT_LINKS = 10

/**
 * Above this many peers (self included) a peer links to BIG_ROOM_RING ring
 * neighbours on each side and BIG_ROOM_SHORTCUTS shortcuts of its own
 * (topology.ts), about 6 links in all, instead of DIRECT_LINKS ring
 * neighbours. Every link end is a DTLS and SCTP stack with GossipSub and
 * anti-entropy on it: at 32 Node peers on two cores, 10 links a peer kept
 * the CPU saturated (ratio 4.6 to the orchestrator, 131 CPU-s); 6 took it to
 * 2.8 and 80 CPU-s. Six is still above GossipSub's mesh degree (D = 4).
 * One ring neighbour a side keeps the graph connected whatever the
 * shortcuts; two shortcuts a peer (and about two more that pick it) make
 * it a small world: 2.5 hops on average at 64 peers, where a ring of 6
 * neighbours needed 5.8.
 */
export const BIG_ROOM_PEERS = 17
export const BIG_ROOM_RING = 1
export const BIG_ROOM_SHORTCUTS = 2

/**
 * A room with no new plan record (and no newcomer) for this long is quiet, and its peers keep
 * only a ring (topology.ts quietLinkShape: two links a peer, three or four
 * in a big room) instead of a full mesh. Every WebRTC link costs its ICE
 * consent checks, SCTP timers and frames whatever it carries: in a quiet
 * room of 6 they were most of an idle tab's CPU (bench:idle). Beats and
 * anti-entropy need only a connected graph. A minute, the quiet room's
 * own (its beats are a minute apart by then: QUIET_ROOM_AFTER_MS), is past the
 * pauses of a run but for a lone long LLM call; the first record after it
 * brings the full mesh back (links in about a second on a LAN), and gossip
 * reaches every peer over the ring meanwhile.
 */
export const QUIET_LINKS_AFTER_MS = 60_000

/**
 * In a quiet room the network's own timers slow down too: the swarm's
 * ticker (DIAL_RECHECK_MS: relay, relink, dial and link-path checks) and
 * GossipSub's heartbeat (GOSSIP_HEARTBEAT_MS: mesh upkeep, IHAVE gossip)
 * run this often instead of every second. Nothing is published, so there is
 * nothing to gossip about and the mesh does not change; a profile of an
 * idle tab put these two at a sixth of its main thread. At 5 s, Firefox
 * still spent 0.65 to 0.77% of a core a tab in the minutes after a plan
 * (each wake of a content process costs it more than the JavaScript it
 * runs); 15 s brought a quiet room of three Firefox tabs from 0.58–0.67%
 * to 0.45–0.48% a tab, with the core's ticks (runtime/cadence.ts).
 * Waking (a record, a newcomer: both arrive as events, not on this
 * ticker) brings both back to their busy cadence at once; a relay that went
 * down in a quiet room is re-dialled up to this much later.
 */
export const QUIET_TICK_MS = 15_000

/**
 * A direct link to a peer that is no longer one of our link targets (the
 * room grew, and the ring moved) is closed once it has been unwanted this
 * long. Without it, links made while a room was filling stayed forever: 32
 * peers held a median of 17 links each instead of 10, and the extra WebRTC
 * links and their gossip saturated two cores. The wait lets every peer's room
 * list settle first, so both ends agree the link is surplus and neither
 * redials it.
 */
export const SURPLUS_LINK_GRACE_MS = 15_000

/**
 * A link whose ping (link-monitor.ts) is not answered in time is aborted
 * (the time adapts to the link's round trips, at least 5 s by default). A
 * busy machine (many peers, or tabs, sharing two cores) can answer that
 * late on a healthy link; each abort then costs a redial and a sync, which
 * load the machine more,
 * until most links of a big room were down at once in the 64-peer-plus-tabs
 * bench. A link that is really gone is closed by its transport (TCP, or
 * WebRTC's consent checks) anyway; the ping only has to catch a peer that
 * hangs, and 20 s still does. For Node peers and the relay only: a tab keeps
 * libp2p's 5 s, because tabs reload often and a reloaded tab's old links
 * linger on the other tabs until a ping catches them (with 20 s, the reloaded
 * executor of an end-to-end test redid finished work once in five runs).
 */
export const LINK_PING_MIN_TIMEOUT_MS = 20_000

/**
 * How often a busy room pings each link (link-monitor.ts; libp2p's own
 * monitor, which it replaces, pings every 10 s). Over WebRTC every
 * ping is a new data channel (opened, two multistream round trips, closed),
 * and an idle tab with seven links spent most of its network thread's CPU on
 * them. What the ping catches, a peer that hangs, is caught anyway: WebRTC's
 * consent checks close a link whose peer stops answering within about 30 s,
 * a reloaded tab's new link makes its old ones stale (relink.ts), and
 * presence (§5.5) tells the roles who is alive whatever the links say.
 */
export const LINK_PING_INTERVAL_MS = 60_000

/**
 * How often a quiet room (topology.ts quietAfterMs) pings each link and its
 * relay connection (link-monitor.ts). The busy interval's pings were then
 * most of what an idle tab received: each a data channel on a WebRTC link,
 * a yamux stream through Noise on the relay's WebSocket. What they catch, a
 * peer that hangs without closing, matters once there is work again, and
 * waking brings LINK_PING_INTERVAL_MS back at once. A WebRTC link to a peer
 * that vanished closes anyway (consent checks), and a newcomer's dial of
 * such a peer fails and is backed off (dialer.ts).
 */
export const QUIET_LINK_PING_INTERVAL_MS = 5 * 60_000

/**
 * yamux's own keepalive is off (it sends a ping frame every 30 s each way
 * by default). It only measures a round trip and never closes a dead
 * connection; our link monitor (LINK_PING_INTERVAL_MS) and the relay's
 * libp2p monitor (RELAY_PING_INTERVAL_MS) already ping every connection and
 * close one whose peer stopped answering. Off, an idle tab's relay
 * connection and a Node peer's TCP links carry those pings only.
 */
export const YAMUX_KEEPALIVE = false

/**
 * A peer we have had a direct link to for this long, whose links carry no
 * GossipSub stream one way or the other, is relinked afresh (relink.ts).
 * GossipSub opens its streams once identify has run on a new link:
 * milliseconds on a LAN, seconds on a machine loaded like the 64-peer bench.
 * Longer than that, so that a new link is never taken for a deaf one; about
 * one anti-entropy round, which is how long such a peer would otherwise wait
 * for anything from us.
 */
export const DEAF_LINK_AFTER_MS = 20_000
/**
 * A new direct link to a peer makes its other direct links stale when they
 * opened at least this long before it (relink.ts): the peer dialled us, or
 * answered our dial, so its end of the old link is gone (a reloaded tab, a
 * restarted agent, a laptop back from sleep), while our end could take a
 * ping timeout to notice (up to 15 s in a tab, 30 s on Node). The two links
 * of one simultaneous dial open within a dial's time of each other: under
 * 2.5 s on a LAN, but dials took 2.4 s at the median and 6.6 s at p90 in
 * the 64-peer-plus-tabs bench. When the older of two live links is taken
 * for stale, the pair keeps the newer one and loses only what was in
 * flight on the older, which anti-entropy brings.
 */
export const STALE_LINK_AGE_MS = 5_000

/**
 * A peer relinked and deaf again waits twice as long each time before the
 * next relink, up to this: a link that never gets its GossipSub streams (a
 * peer too loaded to open them) costs a redial every 5 minutes at most.
 */
export const MAX_DEAF_LINK_AFTER_MS = 5 * 60_000

/**
 * A WebRTC dial through the relay normally completes in under 2 s on a LAN;
 * @libp2p/webrtc's own default is longer. A hung dial would block retries.
 */
export const DIAL_TIMEOUT_MS = 10_000

/**
 * A Node peer that meets a peer it has never identified opens a relayed link
 * first and waits this long for identify on it to announce the peer's
 * addresses: TCP or WebSocket ones (another Node peer) are dialed directly,
 * none (a tab) means WebRTC. Identify takes one round trip through the relay
 * (milliseconds; a second or two in a busy room); a peer that has not
 * answered by then is dialed over WebRTC, which needs nothing from identify.
 * (8 s was tried for very busy machines: it did not speed up the
 * 64-peer-plus-tabs bench and seemed to slow Node-to-tab links;
 * docs/PERFORMANCE.md.)
 */
export const IDENTIFY_WAIT_MS = 3_000

/**
 * Once a peer is linked directly, the relayed link that carried the WebRTC
 * signalling is closed after this grace period (both sides have finished
 * with it well before), so the relay does not keep it open for nothing.
 */
export const RELAYED_LINK_GRACE_MS = 5_000

/** Backoff before re-dialing the relay after losing it: first, and cap. */
export const RELAY_REDIAL_INITIAL_MS = 500
export const RELAY_REDIAL_MAX_MS = 10_000

/**
 * Largest discovery frame (a JSON list of PeerIds: ~55 bytes each). 64 KiB
 * holds over a thousand peers; the relay truncates its answer below it.
 */
export const DISCOVER_MAX_FRAME_BYTES = 64 * 1024

/** The relay lists at most this many peers of a room in one answer. */
export const DISCOVER_MAX_PEERS_LISTED = 1_000

/** A record's header on the wire: format byte and Ed25519 signature (codec.ts WIRE_HEADER_BYTES). */
export const SYNC_RECORD_HEADER_BYTES = 1 + 64
/** The room seal around a record: format byte, 24-byte nonce, 16-byte tag (room-key.ts SEAL_OVERHEAD). */
export const SYNC_SEAL_BYTES = 1 + 24 + 16
/**
 * Sync: largest frame, exactly the largest valid one (PROTOCOL.md §7.2): the
 * RECORD frame of the largest valid record, its type byte, the seal, the
 * record's header and a body of MAX_RECORD_BYTES: 262,251 bytes (256 KiB +
 * 107). Every other frame is smaller (RANGES are cut near 64 KiB, and one
 * range is at most ~130 KB; a WANT frame ~100 KB). A receiver refuses a
 * longer frame, so the limit is exact: a margin would be a size a peer
 * written from the docs refuses.
 */
export const SYNC_MAX_FRAME_BYTES =
  1 + SYNC_SEAL_BYTES + SYNC_RECORD_HEADER_BYTES + MAX_RECORD_BYTES

/**
 * Sync: most reconciliation messages in one session. Each level of splitting
 * is one message; 2^53 ids need 12 levels at SYNC_BRANCHING 16 and
 * SYNC_IDLIST_THRESHOLD 32, so 32 is only reached by a peer stalling on purpose.
 */
export const SYNC_MAX_ROUNDS = 32

/** Sync: RANGES frames are cut at about this size (a have list can be long). */
export const SYNC_RANGES_FRAME_BYTES = 64 * 1024

/** Sync: longest id accepted (bytes once hex-decoded; sha-512 is 64). */
export const SYNC_MAX_ID_BYTES = 64

/** Sync: ids packed per WANT frame (~17 bytes each, well under a frame). */
export const SYNC_IDS_PER_FRAME = 1_500

/**
 * Sync: frames are sent in batches of about this many bytes. One send per
 * record costs a data-channel message and an event-loop turn each, which made
 * 2000 small records take seconds in a browser; 64 KiB batches stay well
 * under the data channel's buffering limits.
 */
export const SYNC_WRITE_BATCH_BYTES = 64 * 1024

/**
 * Sync: a session that goes this long without receiving a frame is aborted
 * (the peer stalled or is holding the stream open on purpose).
 */
export const SYNC_IDLE_TIMEOUT_MS = 5_000

/**
 * Sync: hard cap on one session. A few thousand records of a few KiB each is
 * a few MB: a second or two on a LAN, so 30 s is generous.
 */
export const SYNC_SESSION_TIMEOUT_MS = 30_000

/**
 * Sync: a peer whose records are rejected by the store this many times in one
 * session is sending junk: the session is aborted and the peer is struck.
 */
export const SYNC_MAX_REJECTS = 8

/**
 * Sync: when a session ends without delivering everything we asked for (the
 * peer left, or another session had claimed those ids and then failed) or
 * with differences left over its budgets (deferred), sync again with the
 * connected peers after this delay, at most this many times in a row without
 * progress (a session that received records resets the count).
 */
export const SYNC_RETRY_DELAY_MS = 300
export const SYNC_MAX_RETRIES = 3

/**
 * Sync: inbound sessions one connection may have open at once. One is the
 * normal case; more cover syncNow() racing the on-connect session, and the
 * check rounds a claimant may have in flight at once (SYNC_CHECK_ROUNDS, 3).
 */
export const SYNC_MAX_INBOUND_STREAMS = 6

/**
 * Strikes: how many protocol violations (rejected gossip, junk in sync) a
 * peer (all the PeerIds of its member together, when its member is known)
 * may commit before we hang up on it and refuse it for a while. Gossip
 * rejections of a *forwarded* message count against the forwarder, which a
 * validator that disagrees with its peers could trigger by mistake, hence a
 * threshold above one.
 */
export const STRIKES_BEFORE_BAN = 20
/**
 * A sync session that breaks the protocol or carries junk records counts as
 * this many strikes: it is deliberate (a correct peer only offers records its
 * own store accepted), unlike a gossip rejection that may be a forwarder's
 * honest mistake.
 */
export const SYNC_STRIKE_WEIGHT = 5
/** How long a banned peer (every PeerId of its member) is refused (dials and inbound connections). */
export const BAN_DURATION_MS = 60_000
/** Strikes decay: one is forgiven per this interval. */
export const STRIKE_DECAY_MS = 10_000

/**
 * Inbound connections per second from one host before libp2p refuses more.
 * The default (5) is meant for public nodes; here every tab on a laptop, and
 * every WebRTC link signalled through one relay, comes from one host.
 */
export const INBOUND_CONNECTION_THRESHOLD = 100

/**
 * Circuit relay client: how long a reservation request may take. On a LAN it
 * completes in well under a second; 10 s tolerates a relay busy with a room
 * of tabs all (re)joining at once, and a failed attempt is retried.
 */
export const RELAY_RESERVATION_TIMEOUT_MS = 10_000

/**
 * Gossip rate limit per neighbour (rate-limit.ts). Every message a
 * neighbour forwards is charged to it, once: GossipSub sends each message to
 * a neighbour at most once, so an honest neighbour's rate is at most the
 * room's rate of new records. In a 64-peer room that is ~13 presence beats a
 * second plus plan records paced by LLM calls: a level of a plan with 36
 * goals publishes ~500 proposals, votes, claims and nodes over tens of
 * seconds, and 64 executors finishing together ~130 claims and results. A
 * sync after joining does not use gossip (it has its own limits, §7.4).
 *
 * The burst a neighbour may send at once: any of those honest bursts fits.
 */
export const GOSSIP_BUCKET_CAPACITY = 600
/**
 * Tokens per second: four times the room's steady rate above, yet a flooder
 * held to it costs at most 60 × 2 Ed25519 checks (~0.2 s of CPU a second in
 * pure JS, far less with WebCrypto): it slows a tab, it cannot freeze it.
 */
export const GOSSIP_BUCKET_REFILL_PER_S = 60
/** A message costs one token plus one per 16 KiB: a flood of 256 KiB records drains 17 times faster. */
export const GOSSIP_BYTES_PER_TOKEN = 16 * 1024
/** A neighbour's full bucket is forgotten after this long without traffic. */
export const GOSSIP_BUCKET_IDLE_MS = 60_000
/** At most one log line per flooding neighbour per this interval (with the count dropped). */
export const FLOOD_LOG_INTERVAL_MS = 10_000
/**
 * GossipSub's own score (P5, the application's score) is −strikes × this
 * (its member's strikes, strikes.ts): GossipSub acts only on a score
 * strictly below a threshold, so 3 strikes take a peer below the gossip
 * threshold (−15 < −10: no IHAVE/IWANT with it), 11 below the publish
 * threshold (−55 < −50), 17 below the graylist (−85 < −80: all its RPCs
 * ignored unread) before the ban at STRIKES_BEFORE_BAN hangs up.
 */
export const STRIKE_SCORE_WEIGHT = 5
/**
 * GossipSub score P4 per topic: −weight × (invalid messages)². Five
 * rejected messages (−100) graylist a peer; the count decays by 1% a second
 * (half-life ~70 s), so a peer that sent junk stays graylisted a while.
 */
export const INVALID_MESSAGE_WEIGHT = -4
export const INVALID_MESSAGE_DECAY = 0.99
/**
 * How often GossipSub's peer score decays its counters: every 30 s instead
 * of the library's every second. That timer runs whether or not anything
 * happens, and in a quiet tab it was a sixth of its main thread's tasks (a
 * Chromium trace of bench:idle); at 10 s it was still the page's most
 * frequent timer in a quiet room, each turn a wake that costs Firefox more
 * than the work. Decays are stated per second (as above) and raised to this
 * interval in seconds (gossip.ts perInterval), so a score fades as fast as
 * before, in coarser steps.
 */
export const GOSSIP_SCORE_DECAY_MS = 30_000
