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
  priceKnown,
  createProvider,
  runLlmTask,
  type LlmProvider,
  type ProviderInit,
} from '../llm/index'
import type { LlmCallReport } from '../llm/call-report'
import type { LlmOutcome, ModelConfig } from '../llm/types'
import type { PlanRecord, WireRecord } from '../protocol/records'
import { projectTree, type PlanTree } from '../plan/tree'
import { withoutRecords } from '../plan/archive'
import { createPeer, step, type PeerInput, type PeerState } from '../roles/index'
import { derived } from '../roles/peer'
import { rootOfWork, type Consent } from '../roles/consent'
import type { PeerConfig, PeerEvent } from '../roles/types'
import { ActivityLog } from './activity'
import { callEntry, type CallEntry } from './call-log'
import {
  budgetStep,
  createBudget,
  DEFAULT_BUDGET,
  setLimits,
  type BudgetDecision,
  type BudgetLimits,
  type BudgetState,
  type UsageEvent,
} from './budget'
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
  /** every finished LLM call, for this peer's call log (call-log.ts); without the API key */
  onCall?: (call: CallEntry) => void
  /** caps on what this role spends (default DEFAULT_BUDGET) */
  budget?: BudgetLimits
  /** authors whose goals this role works on; null or absent: anyone in the room */
  authors?: readonly string[] | null
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
  private budget: BudgetState
  private decision: BudgetDecision
  private authors: readonly string[] | null
  private consentKey: string

  constructor(private readonly init: DriverInit) {
    this.now = init.now ?? Date.now
    this.model = init.model
    this.provider = createProvider(init.model, init.providerInit)
    this.authors = init.authors ?? null
    const first = budgetStep(createBudget(init.budget ?? DEFAULT_BUDGET), null, this.now())
    this.budget = first.state
    this.decision = first.decision
    const consent = this.consent()
    this.consentKey = JSON.stringify(consent)
    this.peer = createPeer({ ...init.config, consent }, this.now())
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

  /** New caps: raising the one that was reached resumes the role at the next step. */
  setBudget(limits: BudgetLimits): void {
    this.budget = setLimits(this.budget, limits)
    this.deliver([{ type: 'tick' }])
  }

  /** Whose goals this role works on: PeerIds, or null for anyone in the room. */
  setAuthors(authors: readonly string[] | null): void {
    this.authors = authors === null ? null : [...authors]
    this.deliver([{ type: 'tick' }])
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
    return {
      ...this.activityLog.snapshot(this.model, this.now()),
      budget: {
        limits: { ...this.budget.limits },
        decision: this.decision,
        modelPriced: priceKnown(this.model.provider, this.model.model),
        authors: this.authors === null ? null : this.authors.length,
      },
    }
  }

  private consent(): Consent {
    return {
      authors: this.authors,
      paused: this.decision.paused,
      skipGoals: this.decision.skipGoals,
    }
  }

  /**
   * Counts a finished call against the budget (event) or lets time pass
   * (null); when what the role may do changed, tells the core before its
   * next step.
   */
  private rebudget(event: UsageEvent | null, inputs: PeerInput[]): boolean {
    const { state, decision } = budgetStep(this.budget, event, this.now())
    this.budget = state
    const changed = JSON.stringify(decision) !== JSON.stringify(this.decision)
    this.decision = decision
    const consent = this.consent()
    const key = JSON.stringify(consent)
    if (key !== this.consentKey) {
      this.consentKey = key
      inputs.unshift({ type: 'command', command: { type: 'set-consent', consent } })
    }
    return changed
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
    const budgetChanged = this.rebudget(null, inputs)
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
      budgetChanged ||
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
    const secrets = [this.model.apiKey]
    runLlmTask(task, this.provider, {
      signal: controller.signal,
      seed: this.peer.config.peerId,
      onCall: (report) => this.reportCall(id, report, secrets),
    })
      .then((outcome: LlmOutcome) => {
        if (this.calls.get(id) !== controller) return
        this.calls.delete(id)
        this.activityLog.usage(outcome)
        this.count(id, outcome)
        this.deliver([{ type: 'llm', requestId: id, outcome }])
      })
      .catch((err: Error) => {
        // aborted on purpose (the core dropped the work, or we are stopping)
        if (!controller.signal.aborted) this.init.log?.(`LLM call ${id} failed: ${err.message}`)
        this.calls.delete(id)
      })
  }

  /** Tells the call log what a finished call did, with its goal and node, never its key. */
  private reportCall(id: string, report: LlmCallReport, secrets: (string | undefined)[]): void {
    if (!this.init.onCall) return
    const work = this.peer.work.get(id)
    try {
      this.init.onCall(
        callEntry(report, {
          id: `${id}@${report.startedAt}`,
          goal: work ? rootOfWork(this.peer, work) : null,
          node: work ? (work.task ?? work.subject) : null,
          costUsd: costUsd(report),
          secrets,
        }),
      )
    } catch (err) {
      // the log is for people: a failure there must not fail the call
      this.init.log?.(`could not log LLM call ${id}: ${(err as Error).message}`)
    }
  }

  /** What a finished call spent, against its root goal; the offline model spends nothing. */
  private count(id: string, outcome: LlmOutcome): void {
    const { usage } = outcome
    if (usage.offline || usage.provider === 'offline') return
    const work = this.peer.work.get(id)
    const event: UsageEvent = {
      at: this.now(),
      goal: work ? rootOfWork(this.peer, work) : null,
      tokens: usage.inputTokens + usage.outputTokens,
      usd: costUsd(usage),
    }
    const { state } = budgetStep(this.budget, event, this.now())
    this.budget = state
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
