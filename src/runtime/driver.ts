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
  STREAMED_KINDS,
  type LlmProvider,
} from '../llm/index'
import type { LoopSpend } from '../llm/tools'
import type { Capability, LlmOutcome, ModelConfig } from '../llm/types'
import type { LlmCallReport } from '../llm/call-report'
import { projectTree, type PlanTree } from '../plan/tree'
import { withoutRecords } from '../plan/archive'
import { createPeer, step, type PeerInput, type PeerState } from '../roles/index'
import { derived, roomCapabilities, roomQuiet, workingRoomCapabilities } from '../roles/room-view'
import { offeredToolGroups } from '../roles/view'
import { rootOfWork, type Consent } from '../roles/consent'
import type { PeerEvent } from '../roles/types'
import { ActivityLog } from './activity'
import { QUIET_TICK_MS, rosterKey, TICK_MS, tickDelay } from './cadence'
import { LiveTextFeed } from './live-text'
import { callEntry } from './call-log'
import type { BudgetLimits, UsageEvent } from './budget'
import { RoleSpending } from './role-spending'
import { goalContext, RoleTools } from './role-tools'
import { ModelRecheck } from './model-recheck'
import { modelLabel, sameModel } from './model-config'
import { modelBroken } from '../roles/model-health'
import type { ModelVerdict } from '../roles/types'
import type { McpSettings } from './mcp/types'
import type { DriverInit } from './driver-init'
import type { RoleActivity, ToolConsent } from './types'

export type { DriverInit }

/** At most this often the tree and activity are re-projected for the UI. */
export const VIEW_THROTTLE_MS = 150

export class CoreDriver {
  readonly peer: PeerState
  private provider: LlmProvider
  private model: ModelConfig
  private readonly pending: PeerInput[] = []
  private scheduled = false
  private readonly calls = new Map<string, AbortController>()
  private ticker: ReturnType<typeof setTimeout> | null = null
  /** the delay of the pending tick (TICK_MS or QUIET_TICK_MS) */
  private pendingTickMs = 0
  /** local time of the last input that is not a tick or a presence beat */
  private lastBusyAt: number
  private viewTimer: ReturnType<typeof setTimeout> | null = null
  private lastTreeVersion = -1
  /** the room's offered capabilities when the tree was last projected: a change flags or clears gaps */
  private lastTreeOffered = ''
  /** rosterKey() when the views were last scheduled: a beat alone that changes it refreshes them */
  private lastRoster = ''
  private stopped = false
  private readonly activityLog: ActivityLog
  private readonly live: LiveTextFeed | null
  private readonly now: () => number
  private readonly spending: RoleSpending
  private authors: readonly string[] | null
  private consentKey: string
  /** the capabilities the person chose and the tools it may use; the core advertises what they allow */
  private readonly tools: RoleTools
  private readonly recheck: ModelRecheck | null
  private readonly offMcp: (() => void) | undefined

  constructor(private readonly init: DriverInit) {
    this.now = init.now ?? Date.now
    this.model = init.model
    this.provider = createProvider(init.model, init.providerInit)
    this.authors = init.authors ?? null
    this.tools = new RoleTools({
      executor: init.config.role === 'executor',
      chosen: init.config.capabilities,
      ...(init.tools ? { consent: init.tools } : {}),
      ...(init.createSandbox ? { createSandbox: init.createSandbox } : {}),
      ...(init.mcp ? { mcp: init.mcp } : {}),
      model: () => ({
        offline: this.model.provider === 'offline',
        tools: this.provider.toolSupport(),
      }),
    })
    this.spending = new RoleSpending({
      ...(init.budget ? { limits: init.budget } : {}),
      ...(init.spending ? { persistence: init.spending } : {}),
      now: this.now,
      ...(init.log ? { log: init.log } : {}),
    })
    const consent = this.consent()
    this.consentKey = JSON.stringify(consent)
    const { tools } = this.tools.advertised()
    this.peer = createPeer(
      {
        ...init.config,
        capabilities: this.tools.effective().capabilities,
        ...(tools.length > 0 ? { tools } : {}),
        consent,
      },
      this.now(),
    )
    // a server connected or failed, a tool turned on or off, an approval asked: say so
    this.offMcp = init.mcp?.listen(() => {
      this.readvertise()
      this.scheduleViews()
    })
    for (const record of init.records ?? []) this.peer.plan.add(record)
    this.activityLog = new ActivityLog(this.peer, init.onEntry)
    this.lastBusyAt = this.now()
    this.live = init.onLive ? new LiveTextFeed(init.onLive) : null
    this.recheck = init.checkModel
      ? new ModelRecheck({
          check: init.checkModel,
          onVerdict: (model, verdict) => this.modelChecked(model, verdict),
          ...(init.recheckMs !== undefined ? { everyMs: init.recheckMs } : {}),
          ...(init.log ? { log: init.log } : {}),
        })
      : null
    this.deliver([{ type: 'tick' }])
    this.spending.load(() => this.deliver([{ type: 'tick' }]))
  }

  /**
   * Queue inputs; they are applied together in one step as soon as the
   * current task ends (a macrotask, so that a burst of messages from the tab
   * or the network lands in one step rather than one step each).
   */
  deliver(inputs: PeerInput[]): void {
    if (this.stopped) return
    for (const input of inputs) {
      this.pending.push(input)
      if (input.type !== 'tick' && input.type !== 'presence') this.lastBusyAt = this.now()
    }
    if (this.scheduled) return
    this.scheduled = true
    setTimeout(() => this.runStep(), 0)
  }

  setModel(model: ModelConfig): void {
    this.model = model
    this.provider = createProvider(model, this.init.providerInit)
    // a check under way is of the old model
    this.recheck?.stop()
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
    this.tools.closeUnlessAllowed()
    this.readvertise()
  }

  /**
   * What a check of `model` found (the tab's, a re-check's). Dropped when the
   * model in use is no longer the one checked: a check of the old settings
   * says nothing of the new ones.
   */
  modelChecked(model: ModelConfig, verdict: ModelVerdict): void {
    if (!sameModel(model, this.model)) return
    this.deliver([{ type: 'command', command: { type: 'model-checked', verdict } }])
  }

  /** The capabilities its person offers; the core advertises those the tools allow. */
  setCapabilities(capabilities: readonly Capability[]): void {
    this.tools.choose(capabilities)
    this.readvertise()
    // the switches show what is offered: the tab hears it at once
    this.scheduleViews()
  }

  /** New tool consent, at once: capabilities follow in the next presence beat. */
  setTools(consent: ToolConsent): void {
    this.tools.allow(consent)
    this.readvertise()
    this.scheduleViews()
  }

  /** A tab's MCP servers and its person's consent per tool, from now on (issue 57). */
  setMcp(settings: McpSettings): void {
    this.tools.setMcp(settings)
  }

  /** Its person's answer to another member's call waiting for approval. */
  answerToolCall(id: string, allow: boolean): void {
    this.tools.answerToolCall(id, allow)
  }

  /** Tells the core when what it may advertise changed (consent, model, a model that refused tools, tool groups). */
  private readvertise(): void {
    const { capabilities, writesUnrunCode, tools } = this.tools.advertised()
    const config = this.peer.config
    if (
      JSON.stringify(capabilities) === JSON.stringify(config.capabilities) &&
      writesUnrunCode === (config.writesUnrunCode ?? false) &&
      JSON.stringify(tools) === JSON.stringify(config.tools ?? [])
    )
      return
    const command = { type: 'set-capabilities' as const, capabilities, writesUnrunCode, tools }
    this.deliver([{ type: 'command', command }])
  }

  /**
   * Checked before each further model call of a tool loop: would what this
   * call spent so far reach a cap? Then the loop ends now.
   */
  private capReachedBy(id: string, spent: LoopSpend): string | null {
    if (this.model.provider === 'offline') return null
    const usage = {
      provider: this.provider.id,
      model: this.model.model,
      inputTokens: spent.inputTokens,
      outputTokens: spent.outputTokens,
      offline: false,
    }
    return this.spending.wouldReach(this.usageEvent(id, usage, { webSearches: spent.webSearches }))
  }

  /** New caps: raising the one that was reached resumes the role at the next step. */
  setBudget(limits: BudgetLimits): void {
    this.spending.setLimits(limits)
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
    // what the room's live executors offer: a leaf needing anything else is flagged at once
    return projectTree(derived(this.peer), this.peer.plan, costUsd, {
      capabilities: roomCapabilities(this.peer, this.now()),
      working: workingRoomCapabilities(this.peer, this.now()),
      tools: this.roomToolNames(),
    })
  }

  private roomToolNames(): string[] {
    return offeredToolGroups(this.peer.view, this.peer.config, this.now()).map((g) => g.name)
  }

  activity(): RoleActivity {
    return {
      ...this.activityLog.snapshot(this.model, this.now()),
      budget: {
        limits: this.spending.limits,
        decision: this.spending.decision,
        modelPriced: priceKnown(this.model.provider, this.model.model),
        authors: this.authors === null ? null : this.authors.length,
      },
      tools: this.tools.status(),
    }
  }

  private consent(): Consent {
    return {
      authors: this.authors,
      paused: this.spending.paused,
      skipGoals: this.spending.decision.skipGoals,
    }
  }

  /**
   * Lets time pass for the budget; when what the role may do changed, tells
   * the core before its next step. Says whether the budget's decision changed.
   */
  private rebudget(inputs: PeerInput[]): boolean {
    const changed = this.spending.advance()
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
    if (this.ticker) clearTimeout(this.ticker)
    if (this.viewTimer) clearTimeout(this.viewTimer)
    for (const controller of this.calls.values()) controller.abort()
    this.calls.clear()
    this.live?.stop()
    this.offMcp?.()
    this.tools.close()
    this.recheck?.stop()
  }

  private runStep(): void {
    this.scheduled = false
    if (this.stopped) return
    const inputs = this.pending.splice(0)
    const budgetChanged = this.rebudget(inputs)
    const effects = step(this.peer, inputs, this.now())
    if (effects.publish.length) this.init.publish(effects.publish)
    if (effects.sync) this.init.requestSync?.()
    for (const id of effects.abortLlm) {
      this.calls.get(id)?.abort()
      this.calls.delete(id)
    }
    for (const request of effects.startLlm) this.call(request.id, request.task)
    this.activityLog.record(effects.events, effects.publish, this.now())
    this.recheck?.follow(modelBroken(this.peer), this.model)
    this.scheduleTick()
    const roster = rosterKey(this.peer, this.now())
    const rosterChanged = roster !== this.lastRoster
    this.lastRoster = roster
    if (
      rosterChanged ||
      budgetChanged ||
      effects.events.length ||
      effects.publish.length ||
      this.peer.plan.version !== this.lastTreeVersion
    ) {
      this.scheduleViews()
    }
  }

  /**
   * The next tick: TICK_MS while the core is busy, QUIET_TICK_MS once it is
   * quiet, QUIET_ROOM_TICK_MS once its room is quiet too. A step that finds the core busy again brings a pending slow tick
   * forward.
   */
  private scheduleTick(): void {
    const delay = tickDelay({
      busy: this.calls.size > 0 || this.peer.work.size > 0,
      sinceInputMs: this.now() - this.lastBusyAt,
      roomQuiet: roomQuiet(this.peer, this.now()),
      tickMs: this.init.tickMs ?? TICK_MS,
      quietTickMs: this.init.quietTickMs ?? QUIET_TICK_MS,
    })
    if (this.ticker && delay >= this.pendingTickMs) return
    if (this.ticker) clearTimeout(this.ticker)
    this.pendingTickMs = delay
    this.ticker = setTimeout(() => {
      this.ticker = null
      this.deliver([{ type: 'tick' }])
    }, delay)
  }

  private call(id: string, task: Parameters<typeof runLlmTask>[0]): void {
    const controller = new AbortController()
    this.calls.set(id, controller)
    const tools = this.tools.forTask(
      task,
      (spent) => this.capReachedBy(id, spent),
      goalContext(this.peer, id, this.init.member),
    )
    const secrets = [this.model.apiKey]
    const live = STREAMED_KINDS.includes(task.kind) ? this.live : null
    const work = this.peer.work.get(id)
    live?.start({
      id,
      kind: task.kind,
      task: work?.task ?? null,
      goal: work ? rootOfWork(this.peer, work) : null,
    })
    runLlmTask(task, this.provider, {
      signal: controller.signal,
      seed: this.peer.config.peerId,
      ...(tools ? { tools } : {}),
      onCall: (report) => this.reportCall(id, report, secrets),
      // a wait is said as it starts, with its cause and length
      onRetry: (retry) => {
        if (this.calls.get(id) !== controller) return
        this.activityLog.retrying(retry, this.now())
        this.scheduleViews()
      },
      ...(live ? { onText: (delta, attempt) => live.text(id, delta, attempt) } : {}),
    })
      .finally(() => live?.end(id))
      .then((outcome: LlmOutcome) => {
        if (this.calls.get(id) !== controller) return
        this.calls.delete(id)
        this.activityLog.usage(outcome)
        this.count(id, outcome)
        // a model that refused tools answered text-only: stop offering what it cannot do
        this.readvertise()
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

  /** What a finished call spent (every step's tokens, each search), against its root goal. */
  private count(id: string, outcome: LlmOutcome): void {
    const { usage } = outcome
    if (usage.offline || usage.provider === 'offline') return
    this.spending.count(this.usageEvent(id, usage, outcome.tools))
  }

  /** Resolves once what this role has spent so far is in its storage. */
  spendingSaved(): Promise<void> {
    return this.spending.saved()
  }

  private usageEvent(
    id: string,
    usage: LlmOutcome['usage'],
    tools?: LlmOutcome['tools'],
  ): UsageEvent {
    const work = this.peer.work.get(id)
    return {
      at: this.now(),
      goal: work ? rootOfWork(this.peer, work) : null,
      tokens: usage.inputTokens + usage.outputTokens,
      usd: costUsd(usage, tools),
    }
  }

  private scheduleViews(): void {
    if (this.viewTimer || this.stopped) return
    this.viewTimer = setTimeout(() => {
      this.viewTimer = null
      if (this.stopped) return
      const offered = `${roomCapabilities(this.peer, this.now()).join(',')}/${workingRoomCapabilities(this.peer, this.now()).join(',')};${this.roomToolNames().join(',')}`
      if (
        this.init.onTree &&
        (this.peer.plan.version !== this.lastTreeVersion || offered !== this.lastTreeOffered)
      ) {
        this.lastTreeVersion = this.peer.plan.version
        this.lastTreeOffered = offered
        this.init.onTree(this.tree())
      }
      this.init.onActivity?.(this.activity())
    }, VIEW_THROTTLE_MS)
  }
}

export type { PeerEvent }
