/**
 * The core driver: runs a peer's pure core against real time and a real
 * LLM. It batches inputs into steps, ticks the core on a timer, runs the LLM
 * calls the core asks for (and aborts the ones it drops), and reports what
 * the core publishes, the plan tree and the role's activity.
 *
 * It runs wherever the role lives: inside a Web Worker in a tab, in-process
 * in a headless agent. It does no networking and holds no keys but the LLM
 * provider's, which it only hands to the provider.
 */
import {
  costUsd,
  createProvider,
  runLlmTask,
  type LlmProvider,
  type ProviderInit,
} from '../llm/index'
import type { LlmOutcome, ModelConfig } from '../llm/types'
import type { PlanRecord, WireRecord } from '../protocol/records'
import { projectTree, type PlanTree } from '../plan/tree'
import { withoutRecords } from '../plan/archive'
import { createPeer, step, type PeerInput, type PeerState } from '../roles/index'
import { derived } from '../roles/peer'
import type { PeerConfig, PeerEvent } from '../roles/types'
import { ActivityLog } from './activity'
import type { RoleActivity } from './types'

/**
 * How often the core looks at the clock. Rules are written so that a late
 * tick only delays an outcome; 250 ms keeps claim windows and staggers close
 * to their nominal values in a foreground tab or a worker.
 */
export const TICK_MS = 250
/** At most this often the tree and activity are re-projected for the UI. */
export const VIEW_THROTTLE_MS = 150

export interface DriverInit {
  config: PeerConfig
  /** plan records restored from storage */
  records?: PlanRecord[]
  model: ModelConfig
  providerInit?: ProviderInit
  /** records the core wants published (to sign and gossip); plan records are already applied */
  publish: (records: WireRecord[]) => void
  /**
   * the core asks for an anti-entropy round with every linked peer; the host
   * runs it and delivers { type: 'synced' } after the records it brought
   */
  requestSync?: () => void
  onTree?: (tree: PlanTree) => void
  onActivity?: (activity: RoleActivity) => void
  now?: () => number
  tickMs?: number
  log?: (message: string) => void
}

export class CoreDriver {
  readonly peer: PeerState
  private provider: LlmProvider
  private model: ModelConfig
  private readonly pending: PeerInput[] = []
  private scheduled = false
  private readonly calls = new Map<string, AbortController>()
  private readonly ticker: ReturnType<typeof setInterval>
  private viewTimer: ReturnType<typeof setTimeout> | null = null
  private lastTreeVersion = -1
  private stopped = false
  private readonly activityLog: ActivityLog
  private readonly now: () => number

  constructor(private readonly init: DriverInit) {
    this.now = init.now ?? Date.now
    this.model = init.model
    this.provider = createProvider(init.model, init.providerInit)
    this.peer = createPeer(init.config, this.now())
    for (const record of init.records ?? []) this.peer.plan.add(record)
    this.activityLog = new ActivityLog(this.peer)
    this.ticker = setInterval(() => this.deliver([{ type: 'tick' }]), init.tickMs ?? TICK_MS)
    this.deliver([{ type: 'tick' }])
  }

  /**
   * Queue inputs; they are applied together in one step as soon as the
   * current task ends (a macrotask, so that a burst of messages from the tab
   * or the network lands in one step rather than one step each).
   */
  deliver(inputs: PeerInput[]): void {
    if (this.stopped) return
    for (const input of inputs) this.pending.push(input)
    if (this.scheduled) return
    this.scheduled = true
    setTimeout(() => this.runStep(), 0)
  }

  setModel(model: ModelConfig): void {
    this.model = model
    this.provider = createProvider(model, this.init.providerInit)
    this.deliver([
      {
        type: 'command',
        command: {
          type: 'set-model',
          model: modelLabel(model),
          offline: model.provider === 'offline',
        },
      },
    ])
  }

  /**
   * Drops archived records (settled root goals' trees) from the plan. Nothing
   * else refers to them, so the rest of the plan derives as before.
   */
  archive(ids: string[]): void {
    this.peer.plan = withoutRecords(this.peer.plan, new Set(ids))
    this.peer.derivedCache = null
    this.scheduleViews()
  }

  tree(): PlanTree {
    return projectTree(derived(this.peer), this.peer.plan, costUsd)
  }

  activity(): RoleActivity {
    return this.activityLog.snapshot(this.model, this.now())
  }

  stop(): void {
    this.stopped = true
    clearInterval(this.ticker)
    if (this.viewTimer) clearTimeout(this.viewTimer)
    for (const controller of this.calls.values()) controller.abort()
    this.calls.clear()
  }

  private runStep(): void {
    this.scheduled = false
    if (this.stopped) return
    const inputs = this.pending.splice(0)
    const effects = step(this.peer, inputs, this.now())
    if (effects.publish.length) this.init.publish(effects.publish)
    if (effects.sync) this.init.requestSync?.()
    for (const id of effects.abortLlm) {
      this.calls.get(id)?.abort()
      this.calls.delete(id)
    }
    for (const request of effects.startLlm) this.call(request.id, request.task)
    this.activityLog.record(effects.events, effects.publish, this.now())
    if (
      effects.events.length ||
      effects.publish.length ||
      this.peer.plan.version !== this.lastTreeVersion
    ) {
      this.scheduleViews()
    }
  }

  private call(id: string, task: Parameters<typeof runLlmTask>[0]): void {
    const controller = new AbortController()
    this.calls.set(id, controller)
    runLlmTask(task, this.provider, { signal: controller.signal, seed: this.peer.config.peerId })
      .then((outcome: LlmOutcome) => {
        if (this.calls.get(id) !== controller) return
        this.calls.delete(id)
        this.activityLog.usage(outcome)
        this.deliver([{ type: 'llm', requestId: id, outcome }])
      })
      .catch((err: Error) => {
        // aborted on purpose (the core dropped the work, or we are stopping)
        if (!controller.signal.aborted) this.init.log?.(`LLM call ${id} failed: ${err.message}`)
        this.calls.delete(id)
      })
  }

  private scheduleViews(): void {
    if (this.viewTimer || this.stopped) return
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null
      if (this.stopped) return
      if (this.init.onTree && this.peer.plan.version !== this.lastTreeVersion) {
        this.lastTreeVersion = this.peer.plan.version
        this.init.onTree(this.tree())
      }
      this.init.onActivity?.(this.activity())
    }, VIEW_THROTTLE_MS)
  }
}

export function modelLabel(model: ModelConfig): string {
  return model.provider === 'offline'
    ? 'offline-v1'
    : `${model.provider}/${model.model}`.slice(0, 80)
}

export type { PeerEvent }
