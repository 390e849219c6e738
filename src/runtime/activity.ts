/**
 * What a role is doing, in words a person reads: its current work, a short
 * history of what it did, its LLM calls and tokens. Built from the core's
 * events and from the records it publishes.
 */
import { costUsd } from '../llm/pricing'
import { retryText, type LlmRetry } from '../llm/retry-notice'
import type { LlmOutcome, LlmTaskKind, ModelConfig } from '../llm/types'
import type { WireRecord } from '../protocol/records'
import type { Step } from '../protocol/steps'
import { derived } from '../roles/room-view'
import { HEALTH_RETRY_MS, type PeerState, type Work } from '../roles/peer'
import type { PeerEvent } from '../roles/types'
import { MODEL_RECHECK_MS } from './model-recheck'
import { presenceTtlMs } from '../protocol/rules'
import type { ActivityEntry, ActivityEvent, ModelStatus, RoleActivity } from './types'

/** Entries kept in the activity list: enough to scroll back a while, bounded. */
const MAX_RECENT = 60

/** ", ran code 2×, searched 1×, from knowledge": what a result's steps say, for the activity list. */
function stepsNote(steps: readonly Step[] | undefined): string {
  if (!steps) return ''
  const count = (type: Step['type']) => steps.filter((step) => step.type === type).length
  const parts = [
    count('code') ? `ran code ${count('code')}×` : '',
    count('search') ? `searched ${count('search')}×` : '',
    count('knowledge') ? 'from knowledge, unchecked' : '',
  ].filter(Boolean)
  return parts.length ? `, ${parts.join(', ')}` : ''
}

/**
 * A health change in words. A rate limit is cleared by the core on its own
 * after HEALTH_RETRY_MS so that the role tries again; only a check or a call
 * that succeeded says the model works (issue 43). A model known broken takes
 * no work until its settings change or a check finds it working (issue 56).
 */
export function healthEntry(
  event: { healthy: boolean; error?: string; broken?: boolean },
  status: ModelStatus,
): Omit<ActivityEvent, 'at'> {
  if (!event.healthy && event.broken)
    return {
      text: `Model not working: ${(event.error ?? 'unknown error').replace(/\.+$/, '')}. No new work until it does (checked again every ${MODEL_RECHECK_MS / 1000} s, and when its settings change)`,
      tone: 'bad',
    }
  if (!event.healthy)
    return { text: `LLM provider failing: ${event.error ?? 'unknown error'}`, tone: 'bad' }
  if (status.state === 'works')
    return {
      text: status.by === 'check' ? 'The model check succeeded' : 'LLM provider works again',
      tone: 'good',
    }
  if (status.state === 'unknown')
    return { text: 'New model settings: not checked yet', tone: 'info' }
  return {
    text: `Will try the LLM provider again with the next task (${HEALTH_RETRY_MS / 1000} s after it failed); not known to work yet`,
    tone: 'warn',
  }
}

function short(text: string, max = 70): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

export class ActivityLog {
  private readonly recent: ActivityEntry[] = []
  private inputTokens = 0
  private outputTokens = 0
  private cost = 0
  private unpricedCalls = 0
  private failedCalls = 0
  /**
   * local time each running call started (its llm-started event). A work
   * item's own `since` is its claim's time, or none for a designated claim:
   * the running time shown must be the call's (issue 43).
   */
  private readonly callStarts = new Map<string, number>()

  /**
   * @param onEntry told each entry once, as it is recorded (RuntimeEvents.entry),
   *   before the list merges it with the one before
   */
  constructor(
    private readonly peer: PeerState,
    private readonly onEntry?: (entry: ActivityEvent) => void,
  ) {}

  usage(outcome: LlmOutcome): void {
    this.inputTokens += outcome.usage.inputTokens
    this.outputTokens += outcome.usage.outputTokens
    const cost = costUsd(outcome.usage, outcome.tools)
    if (cost === null) this.unpricedCalls++
    else this.cost += cost
    if (!outcome.ok) this.failedCalls++
  }

  record(events: readonly PeerEvent[], published: readonly WireRecord[], now: number): void {
    for (const event of events) {
      if (event.type === 'llm-started') this.callStarts.set(event.request, now)
      const entry = this.describeEvent(event)
      if (entry) this.push({ at: now, ...entry })
    }
    for (const record of published) {
      const entry = this.describeRecord(record)
      if (entry) this.push({ at: now, ...entry })
    }
  }

  /** A wait before an LLM call tries again, said as it starts (retry-notice.ts). */
  retrying(retry: LlmRetry, now: number): void {
    this.push({ at: now, text: retryText(retry), tone: 'warn' })
  }

  snapshot(model: ModelConfig, now: number): RoleActivity {
    const peer = this.peer
    for (const id of this.callStarts.keys()) if (!peer.work.has(id)) this.callStarts.delete(id)
    return {
      role: peer.config.role,
      capabilities: [...peer.config.capabilities],
      model: peer.config.model,
      offline: model.provider === 'offline',
      healthy: peer.healthy,
      lastError: peer.lastError,
      lastErrorKind: peer.lastError ? peer.modelStatus.kind : null,
      modelStatus: { ...peer.modelStatus },
      work: [...peer.work.values()].map((work) => ({
        id: work.requestId,
        kind: work.kind,
        label: this.label(work),
        since: this.sinceOf(work, now),
        started: work.started,
      })),
      recent: this.recent.map((entry) => ({ ...entry })),
      swarm: [...peer.view.peers.values()]
        .filter(({ presence, heardAt }) => now - heardAt <= presenceTtlMs(presence.every))
        .map(({ presence, heardAt }) => ({
          peerId: presence.from,
          role: presence.role,
          model: presence.model,
          offline: presence.offline,
          capabilities: [...presence.capabilities],
          // the tool groups its person turned on (issue 57): what the room learns of them
          ...(presence.tools ? { tools: structuredClone(presence.tools) } : {}),
          healthy: presence.healthy,
          load: presence.load,
          capacity: presence.capacity,
          holding: [...presence.holding],
          lastSeenMs: Math.max(0, now - heardAt),
        })),
      llm: {
        calls: { ...peer.counters.llmCalls } as Record<LlmTaskKind, number>,
        inputTokens: this.inputTokens,
        outputTokens: this.outputTokens,
        costUsd: this.cost,
        unpricedCalls: this.unpricedCalls,
        failedCalls: this.failedCalls,
      },
    }
  }

  private push(entry: ActivityEvent): void {
    this.onEntry?.({ ...entry })
    const last = this.recent[0]
    if (last && last.text === entry.text) {
      last.count++
      last.at = entry.at
      return
    }
    this.recent.unshift({ ...entry, count: 1 })
    if (this.recent.length > MAX_RECENT) this.recent.length = MAX_RECENT
  }

  /** When a work item began, for its running time: its call's start once started, else its claim. */
  private sinceOf(work: Work, now: number): number {
    if (work.started) return this.callStarts.get(work.requestId) ?? now
    return Number.isFinite(work.since) ? work.since : now
  }

  /** The goal or subgoal text a piece of work is about. */
  private label(work: Work): string {
    const plan = derived(this.peer)
    switch (work.kind) {
      case 'decompose':
        return `split: ${short(plan.goals.get(work.subject)?.text ?? work.subject)}`
      case 'score': {
        const goal = this.peer.plan.proposals.get(work.subject)?.goal
        return `score a split of: ${short(plan.goals.get(goal ?? '')?.text ?? work.subject)}`
      }
      case 'decide':
        return `decide: ${short(plan.goals.get(work.subject)?.text ?? work.subject)}`
      case 'execute':
        return `execute: ${short(plan.leaves.get(work.task ?? '')?.slot.text ?? work.subject)}`
      case 'rollup':
        return `roll up: ${short(plan.rollups.get(work.task ?? '')?.text ?? work.subject)}`
    }
  }

  private describeEvent(event: PeerEvent): Omit<ActivityEvent, 'at'> | null {
    switch (event.type) {
      case 'claimed':
        return { text: `Claimed a task${event.designated ? '' : ' (stepping in)'}`, tone: 'info' }
      case 'llm-aborted':
        return { text: `Stopped ${event.kind}: ${event.why}`, tone: 'warn' }
      case 'output-dropped':
        return { text: `Dropped ${event.kind} output: ${event.why}`, tone: 'warn' }
      case 'was-away':
        return {
          text: `Away ${Math.round(event.awayMs / 1000)} s, longer than a lease: checking with peers before working again`,
          tone: 'warn',
        }
      case 'health':
        return healthEntry(event, this.peer.modelStatus)
      case 'invalid-record':
        return { text: `Did not publish an invalid ${event.kind}: ${event.reason}`, tone: 'bad' }
      case 'steering-ignored':
        return {
          text: `Ignored a ${event.kind} by ${event.from.slice(-6)}: only the goal's author steers it`,
          tone: 'warn',
        }
      default:
        return null
    }
  }

  private describeRecord(record: WireRecord): Omit<ActivityEvent, 'at'> | null {
    const plan = derived(this.peer)
    switch (record.kind) {
      case 'goal':
        return { text: `Submitted goal: ${short(record.text)}`, tone: 'info' }
      case 'proposal':
        return {
          text: `Proposed ${record.subgoals.length} subgoals for: ${short(plan.goals.get(record.goal)?.text ?? '')}`,
          tone: 'good',
        }
      case 'score':
        return {
          text: `Scored a split ${record.score.toFixed(2)}: ${short(record.notes, 60)}`,
          tone: 'good',
        }
      case 'accept':
        return {
          text: `Accepted a split (${record.basis}) of: ${short(plan.goals.get(record.goal)?.text ?? '')}`,
          tone: 'good',
        }
      case 'result':
        return {
          text: `Published a result (${record.output.length} chars${stepsNote(record.steps)})`,
          tone: 'good',
        }
      case 'failure':
        return {
          text: `Reported a failure (${record.stage}): ${short(record.detail, 80)}`,
          tone: 'bad',
        }
      case 'cancel':
        return { text: 'Cancelled a goal', tone: 'warn' }
      case 'steer':
        return { text: record.paused ? 'Paused a goal' : 'Changed a goal’s settings', tone: 'warn' }
      case 'verdict':
        return { text: record.approve ? 'Approved a split' : 'Vetoed a split', tone: 'info' }
      case 'redo':
        return { text: 'Sent a leaf back with a note', tone: 'warn' }
      case 'reannounce':
        return { text: 'Re-announced an unclaimed task', tone: 'warn' }
      default:
        return null
    }
  }
}
