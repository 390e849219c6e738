/**
 * This peer's side of its room's members (docs/PROTOCOL.md §0.1): it acts
 * for the member of its invite link (a `bind`, published first and again
 * every BIND_REPUBLISH_MS), an owner admits itself and the people it
 * invites, removes members and resets links (a `rekey` sealing the next
 * epoch's secret to everyone who stays), and every member follows the
 * winning rekey chain: it opens its box, moves the room's network to the new
 * epoch (the runtime rebuilds it, room-node.ts) and forwards the rekey on
 * the epochs it left, for members who come back. A member that reads itself
 * in a rekey's `removed` stops: nothing new reaches it.
 *
 * The rules are the protocol's (membership.ts, member-key.ts, pure); this
 * module holds the state that follows from them on one peer, and the I/O
 * (publishing, persistence, the network switch) goes through its init.
 */
import { deriveMembership, peersOf, type Membership } from '../protocol/membership'
import type { KeptCandidate } from '../protocol/kept'
import {
  deriveMemberKey,
  newMemberSeed,
  openEpochSecret,
  type MemberKey,
} from '../protocol/member-key'
import { fromBase64url, toBase64url } from '../protocol/base64url'
import { MAX_MEMBER_NAME } from '../protocol/limits'
import {
  newAdmit,
  newBind,
  type MemberRecord,
  type PlanRecord,
  type RekeyRecord,
  type WireRecord,
} from '../protocol/records'
import { deriveRoomKey, type RoomKey } from '../protocol/room-key'
import type { MembersPersistence, SavedEpoch, SavedInvite } from './members-persist'
import { DEFAULT_OWNER_NAME, guestName } from './members-names'
import { NotOwnerError, UnknownMemberError } from './members-errors'
import { lostRekeys, removalRekey, type OwnRekey } from './members-rekey'

export { DEFAULT_OWNER_NAME, NotOwnerError, UnknownMemberError }

/**
 * How often a peer publishes its bind again while its room is awake: the
 * presence cadence of a quiet room. A bind is a plan record (stored,
 * synced), so this only reaches peers that missed it; the same bytes, the
 * same id, nothing stored twice. A quiet room skips it (sync on every new
 * link and anti-entropy carry binds as any record): each one was two
 * signatures here and a check on every peer, a minute apart for as long as
 * tabs stay open after their plan (bench:idle).
 */
export const BIND_REPUBLISH_MS = 60_000
/**
 * Previous epochs a member keeps forwarding (rekeys only) for members who
 * were offline at a reset. Each is a network node of its own; four resets
 * missed in a row is beyond what a person who comes back can expect.
 */
export const MAX_FORWARD_EPOCHS = 4

/** What the link gave this peer: the room's owner and this person's seed. */
export interface MemberInit {
  owner: string
  seed: Uint8Array
  /** the owner's own name in its admit (default DEFAULT_OWNER_NAME) */
  name?: string
  /** false: never admits its owner (an agent's one-off action leaves the name to a peer that stays) */
  admitSelf?: boolean
}

/** A person this owner invited: their member, name and seed (the link's `me`). */
export interface PersonInvite {
  member: string
  name: string
  seed: Uint8Array
}

export interface RoomMembersInit {
  room: string
  stable: string
  owner: string
  me: MemberKey
  ownName?: string
  /** see MemberInit.admitSelf (default true) */
  admitSelf?: boolean
  peerId: string
  /** the key of the link this peer started from */
  linkKey: RoomKey
  persistence: MembersPersistence
  /** publishes records (signed by this peer) and resolves once they went out */
  publish: (records: WireRecord[]) => Promise<void>
  /** the member records held (the plan store's) */
  records: () => Iterable<PlanRecord>
  /** every record held or archived by these PeerIds (what a removal keeps, protocol/kept.ts) */
  heldBy: (peers: ReadonlySet<string>) => Promise<KeptCandidate[]>
  /** a sync round with the neighbours, bounded: a removal then keeps what they had of the member */
  syncFirst?: () => Promise<void>
  /** moves the room's network to another epoch's key */
  switchTo: (key: RoomKey) => Promise<void>
  /** the previous epochs' keys to keep forwarding (newest first) */
  forward: (keys: RoomKey[]) => void
  /** this peer's member was removed (or its link reset): stop */
  onRemoved: () => void
  /** the membership or the epoch changed */
  onChange: () => void
  now: () => number
  log: (message: string) => void
}

export class RoomMembers {
  current: RoomKey
  /** the winning rekey whose secret `current` is (null: epoch 0, or not known yet) */
  private currentRekey: string | null = null
  private membershipCache: Membership
  private readonly memberRecords: MemberRecord[] = []
  private readonly memberIds = new Set<string>()
  private saved: SavedEpoch[] = []
  private invites: SavedInvite[] = []
  /** keys of epochs this peer held, by transport id */
  private readonly held = new Map<string, { key: RoomKey; epoch: number }>()
  private removedFlag = false
  private checking: Promise<void> = Promise.resolve()
  private queued = false
  private bindTimer: ReturnType<typeof setInterval> | undefined
  private admitted = false
  /** rekeys this owner made and has not seen win or lose yet (members-rekey.ts) */
  private readonly mine = new Map<string, OwnRekey>()

  constructor(private readonly init: RoomMembersInit) {
    this.current = init.linkKey
    this.membershipCache = deriveMembership(init.stable, init.owner, [])
  }

  get me(): MemberKey {
    return this.init.me
  }

  get removed(): boolean {
    return this.removedFlag
  }

  membership(): Membership {
    return this.membershipCache
  }

  /** People this browser (or agent) invited as an owner, oldest first. */
  savedInvites(): PersonInvite[] {
    return this.invites.map((i) => ({
      member: i.member,
      name: i.name,
      seed: fromBase64url(i.seed),
    }))
  }

  /** Loads what was saved, takes the records held, and picks the epoch to start in. */
  async start(): Promise<void> {
    const saved = await this.init.persistence.load()
    this.saved = saved.epochs
    this.invites = saved.invites
    for (const record of this.init.records()) this.take(record)
    this.membershipCache = this.derive()
    const target = this.target(this.membershipCache)
    if (target) {
      this.current = target.key
      this.currentRekey = target.rekey
    }
    this.held.set(this.init.linkKey.id, { key: this.init.linkKey, epoch: -1 })
    this.held.set(this.current.id, { key: this.current, epoch: this.membershipCache.epoch })
    if (this.membershipCache.removed.has(this.me.id)) this.removedFlag = true
  }

  /** This peer's bind (first of all it publishes), and again every BIND_REPUBLISH_MS. */
  bind(): WireRecord {
    return newBind(this.init.stable, this.init.peerId, this.me)
  }

  /** `quiet`: is the room quiet now (no republishing then)? */
  startRepublishing(quiet: () => boolean = () => false): void {
    this.bindTimer = setInterval(() => {
      if (!this.removedFlag && !quiet()) void this.init.publish([this.bind()])
    }, BIND_REPUBLISH_MS)
  }

  /** After the first sync: the root owner admits itself once (name and box key for everyone). */
  async joined(): Promise<void> {
    if (this.admitted || this.me.id !== this.init.owner || this.removedFlag) return
    if (this.init.admitSelf === false) return
    this.admitted = true
    const own = this.membershipCache.members.get(this.me.id)
    if (own?.name != null) return
    await this.init.publish([
      newAdmit(
        this.init.stable,
        this.init.peerId,
        {
          member: this.me.id,
          box: this.me.box,
          name: (this.init.ownName ?? DEFAULT_OWNER_NAME).slice(0, MAX_MEMBER_NAME),
          coOwner: false,
        },
        this.init.now(),
      ),
    ])
  }

  /** A record entered the store: member records may move the room on. */
  recordArrived(record: PlanRecord): void {
    if (!this.take(record)) return
    if (this.queued) return
    this.queued = true
    queueMicrotask(() => {
      this.queued = false
      this.checking = this.checking
        .then(() => this.check())
        .catch((err: Error) => {
          this.init.log(`membership check failed: ${err.message}`)
        })
    })
  }

  private take(record: PlanRecord): boolean {
    if (record.kind !== 'bind' && record.kind !== 'admit' && record.kind !== 'rekey') return false
    if (this.memberIds.has(record.id)) return false
    this.memberIds.add(record.id)
    this.memberRecords.push(record)
    return true
  }

  private derive(): Membership {
    return deriveMembership(this.init.stable, this.init.owner, this.memberRecords)
  }

  /** The epoch key the chain's last rekey gives this member, if it can open it. */
  private target(m: Membership): { key: RoomKey; rekey: string } | null {
    const last = m.rekeys[m.rekeys.length - 1]
    if (!last) return null
    const secret = this.secretOf(last)
    return secret ? { key: deriveRoomKey(this.init.room, secret), rekey: last.id } : null
  }

  private secretOf(rekey: RekeyRecord): Uint8Array | null {
    const opened = openEpochSecret(this.me, this.init.stable, rekey)
    if (opened) return opened
    // this owner made it (its own box may be missing before its admit is heard)
    const saved = this.saved.find((e) => e.epoch === rekey.epoch && e.rekey === rekey.id)
    return saved ? fromBase64url(saved.secret) : null
  }

  private async check(): Promise<void> {
    if (this.removedFlag) return
    const m = this.derive()
    this.membershipCache = m
    const removal = m.removed.get(this.me.id)
    if (removal) {
      this.removedFlag = true
      clearInterval(this.bindTimer)
      this.init.log(`this member was ${removal.reason === 'reset' ? 'reset' : 'removed'}`)
      this.init.onRemoved()
      this.init.onChange()
      return
    }
    // another owner's rekey won an epoch one of ours was for: make our change again on top
    for (const [id, own] of this.mine) if (m.rekeys[own.epoch - 1]?.id === id) this.mine.delete(id)
    for (const id of lostRekeys(m, this.mine)) {
      const own = this.mine.get(id)!
      this.mine.delete(id)
      this.init.log(`a rekey of epoch ${own.epoch} lost to another owner's: removing again`)
      queueMicrotask(() => {
        this.rekey(own.member, own.reason).catch((err: Error) => {
          this.init.log(`could not remove again: ${err.message}`)
        })
      })
    }
    const last = m.rekeys[m.rekeys.length - 1]
    if (last && last.id !== this.currentRekey) {
      const target = this.target(m)
      this.currentRekey = last.id
      if (!target) {
        // admitted after it (a reset's new link already holds that epoch's key), or not sealed to us
        this.init.log(`rekey to epoch ${last.epoch} has no box this member can open`)
      } else {
        await this.remember(last.epoch, target.key.secret, last.id)
        if (target.key.id !== this.current.id) {
          this.held.set(target.key.id, { key: target.key, epoch: last.epoch })
          const left = this.current
          this.current = target.key
          this.init.log(`moving to epoch ${last.epoch}`)
          await this.init.switchTo(target.key)
          this.held.set(left.id, { key: left, epoch: this.held.get(left.id)?.epoch ?? -1 })
          // a new epoch has new neighbours: tell them who this PeerId acts for
          void this.init.publish([this.bind()])
        }
      }
      this.init.forward(this.previousKeys())
    }
    this.init.onChange()
  }

  /** Keys of epochs left behind, newest first, at most MAX_FORWARD_EPOCHS. */
  previousKeys(): RoomKey[] {
    return [...this.held.values()]
      .filter((h) => h.key.id !== this.current.id)
      .sort((a, b) => b.epoch - a.epoch)
      .slice(0, MAX_FORWARD_EPOCHS)
      .map((h) => h.key)
  }

  private async remember(epoch: number, secret: Uint8Array, rekey: string): Promise<void> {
    const entry: SavedEpoch = { epoch, secret: toBase64url(secret), rekey }
    this.saved = [...this.saved.filter((e) => e.rekey !== rekey), entry]
    try {
      await this.init.persistence.saveEpoch(entry)
    } catch (err) {
      this.init.log(`could not save epoch ${epoch}: ${(err as Error).message}`)
    }
  }

  private mayManage(what: string): Membership {
    const m = this.derive()
    if (this.removedFlag || !m.owners.has(this.me.id)) throw new NotOwnerError(what)
    return m
  }

  /** Owner: admits a new person and returns their invite (name default "Guest N"). */
  async invite(name?: string, coOwner = false): Promise<PersonInvite> {
    const m = this.mayManage('invite people')
    // the room's maker, inviting before its first sync: its own admit (its name) goes first
    await this.joined()
    const taken = [
      ...[...m.members.values()].map((x) => x.name),
      ...this.invites.map((i) => i.name),
    ]
    const label = (name?.trim() || guestName(taken)).slice(0, MAX_MEMBER_NAME)
    const seed = newMemberSeed()
    const key = deriveMemberKey(seed)
    const saved: SavedInvite = {
      member: key.id,
      name: label,
      seed: toBase64url(seed),
      at: this.init.now(),
    }
    this.invites = [...this.invites, saved]
    await this.init.persistence.saveInvite(saved)
    await this.init.publish([
      newAdmit(
        this.init.stable,
        this.init.peerId,
        { member: key.id, box: key.box, name: label, coOwner },
        this.init.now(),
      ),
    ])
    return { member: key.id, name: label, seed }
  }

  /**
   * Owner: makes a member a co-owner with a second admit saying `coOwner`
   * (PROTOCOL §0.1: any counted admit makes one; name and box stay the first's).
   */
  async makeCoOwner(member: string): Promise<void> {
    const m = this.mayManage('name co-owners')
    const info = m.members.get(member)
    if (!info || !m.isActive(member) || info.box === null || info.name === null)
      throw new UnknownMemberError(`no member ${member} in this room`)
    if (info.rootOwner || info.coOwner) return
    const admit = { member, box: info.box, name: info.name, coOwner: true }
    await this.init.publish([newAdmit(this.init.stable, this.init.peerId, admit, this.init.now())])
    await this.settle()
  }

  /** Owner: moves the room to a new epoch without `member` (reason remove or reset). */
  private async rekey(member: string, reason: 'remove' | 'reset'): Promise<Membership> {
    const what = reason === 'remove' ? 'remove members' : 'reset invite links'
    this.mayManage(what)
    // the member's last records still on their way here keep counting if a neighbour has them
    await this.init.syncFirst?.()
    await this.settle()
    const m = this.mayManage(what)
    if (!m.isActive(member)) throw new UnknownMemberError(`no member ${member} in this room`)
    if (member === this.init.owner)
      throw new NotOwnerError('be removed by a co-owner: not the root owner')
    // what of theirs keeps counting: everything this peer holds or archived of them (§0.1)
    const held = await this.init.heldBy(new Set(peersOf(m, member)))
    const { record, secret } = removalRekey(
      m,
      this.init.peerId,
      member,
      reason,
      held,
      this.init.now(),
    )
    this.mine.set(record.id, { member, reason, epoch: record.epoch })
    // kept before it is published: the owner may have no box of its own yet
    await this.remember(record.epoch, secret, record.id)
    // publishing adds it to the store, which hands it back here (recordArrived)
    await this.init.publish([record])
    await this.settle()
    return m
  }

  /** Waits for the membership check in progress (and one queued). */
  async settle(): Promise<void> {
    await new Promise<void>((resolve) => queueMicrotask(resolve))
    await this.checking
  }

  async remove(member: string): Promise<void> {
    await this.rekey(member, 'remove')
  }

  /** Owner: resets `member`'s link: removed (reason reset), a new member of the same name admitted. */
  async reset(member: string): Promise<PersonInvite> {
    const before = this.derive()
    const name = before.members.get(member)?.name ?? undefined
    await this.rekey(member, 'reset')
    return this.invite(name ?? undefined, before.members.get(member)?.coOwner ?? false)
  }

  stop(): void {
    clearInterval(this.bindTimer)
  }
}
