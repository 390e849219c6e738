/**
 * One joined peer, as reactive state for the components: the runtime's tree,
 * activity and connections, kept up to date from its events.
 */
import type { PlanTree } from '../../plan/tree'
import type {
  ConnectionSummary,
  LiveText,
  MembersView,
  PeerRuntime,
  RoleActivity,
} from '../../runtime/types'
import { rememberRoom, writeLocation, type RoomInvite } from './invite'
import { shareStructure } from './share-structure'

/** When this tab first saw a root goal, and when it saw it settle: for the elapsed time. */
export interface GoalClock {
  seenAt: number
  settledAt: number | null
}

const SETTLED = new Set(['done', 'failed', 'cancelled'])

export class Session {
  readonly runtime: PeerRuntime
  /**
   * this person's way into the room (the current epoch's key, the owner,
   * their member seed): for links; never sent anywhere. It follows the room
   * to a new epoch after a reset or a removal.
   */
  room = $state.raw<RoomInvite>() as RoomInvite
  /** the room's members (null for a peer without a member, the dev fake) */
  members = $state.raw<MembersView | null>(null)
  tree = $state.raw<PlanTree>() as PlanTree
  activity = $state.raw<RoleActivity>() as RoleActivity
  connections = $state.raw<ConnectionSummary>() as ConnectionSummary
  clocks = $state.raw<Record<string, GoalClock>>({})
  /** the text of this tab's running execute and roll-up calls, as it arrives */
  live = $state.raw<LiveText[]>([])
  private readonly unsubscribe: (() => void)[] = []

  constructor(runtime: PeerRuntime, room: RoomInvite) {
    this.runtime = runtime
    this.room = room
    this.members = runtime.members()
    this.setTree(runtime.tree())
    this.activity = runtime.activity()
    this.connections = runtime.connections()
    this.unsubscribe.push(
      runtime.on('tree', (tree) => this.setTree(tree)),
      runtime.on(
        'activity',
        (activity) => (this.activity = shareStructure(this.activity, activity)),
      ),
      runtime.on('connections', (summary) => (this.connections = summary)),
      runtime.on('live', (live) => (this.live = live)),
      runtime.on('members', (members) => this.setMembers(members)),
    )
  }

  private setMembers(members: MembersView): void {
    this.members = members
    const key = this.runtime.roomKey()
    if (key.id === this.room.room.id) return
    // the room moved to a new epoch: this tab's address and links carry its key from now on
    this.room = { ...this.room, room: key }
    writeLocation(this.room, this.runtime.role)
    rememberRoom(this.room)
  }

  private setTree(next: PlanTree): void {
    this.tree = shareStructure(this.tree as PlanTree | undefined, next)
    this.updateClocks(Date.now())
  }

  private updateClocks(now: number): void {
    let clocks = this.clocks
    for (const goal of this.tree.goals) {
      const clock = clocks[goal.id]
      const settled = SETTLED.has(goal.status)
      if (clock && (clock.settledAt !== null || !settled)) continue
      clocks = clocks === this.clocks ? { ...clocks } : clocks
      clocks[goal.id] = { seenAt: clock?.seenAt ?? now, settledAt: settled ? now : null }
    }
    if (clocks !== this.clocks) this.clocks = clocks
  }

  /** Stops listening and stops the peer. */
  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off()
    await this.runtime.stop()
  }
}
