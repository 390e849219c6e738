/**
 * One joined peer, as reactive state for the components: the runtime's tree,
 * activity and connections, kept up to date from its events.
 */
import type { PlanTree } from '../../plan/tree'
import type { RoomKey } from '../../protocol/room-key'
import type { ConnectionSummary, LiveText, PeerRuntime, RoleActivity } from '../../runtime/types'
import { shareStructure } from './share-structure'

/** When this tab first saw a root goal, and when it saw it settle: for the elapsed time. */
export interface GoalClock {
  seenAt: number
  settledAt: number | null
}

const SETTLED = new Set(['done', 'failed', 'cancelled'])

export class Session {
  readonly runtime: PeerRuntime
  /** the room joined, with its secret (for invite links; never sent anywhere) */
  readonly room: RoomKey
  tree = $state.raw<PlanTree>() as PlanTree
  activity = $state.raw<RoleActivity>() as RoleActivity
  connections = $state.raw<ConnectionSummary>() as ConnectionSummary
  clocks = $state.raw<Record<string, GoalClock>>({})
  /** the text of this tab's running execute and roll-up calls, as it arrives */
  live = $state.raw<LiveText[]>([])
  private readonly unsubscribe: (() => void)[] = []

  constructor(runtime: PeerRuntime, room: RoomKey) {
    this.runtime = runtime
    this.room = room
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
    )
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
