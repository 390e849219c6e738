/**
 * Executor: claims leaves that match its capabilities, runs them through the
 * LLM with their dependencies' results, and publishes the result; and claims
 * roll-ups (writing a goal's combined result once all its subgoals settled;
 * the root goal's roll-up is the final plan document).
 */
import type { Capability } from '../protocol/capabilities'
import type { FailureRecord, ResultRecord } from '../protocol/records'
import { MAX_OUTPUT } from '../protocol/limits'
import type { Step } from '../protocol/steps'
import { dependencyOutputs, readyToRollUp } from '../plan/derive'
import { gapRevivable } from '../plan/gap'
import type { TaskState } from '../plan/tasks'
import { isHolder, maybeClaim, reviewClaims } from './claims'
import type { LlmOutcome } from './llm-contract'
import { clip, failureFields } from './text'
import { fitSteps } from './steps'
import { derived, roomCapabilities } from './room-view'
import { emit } from './emit'
import { startLlm } from './work'
import type { PeerState, RoleLogic, Work } from './peer'
import { clearedAnswers, mayPublish } from './lapse'
import type { Effects } from './types'

function begin(peer: PeerState, fx: Effects, claim: Work, task: TaskState): void {
  const plan = derived(peer)
  const work: Work = { ...claim, requestId: `${task.type}:${task.id}:${claim.epoch}` }
  if (task.type === 'execute') {
    const leaf = plan.leaves.get(task.id)
    const dependencies = leaf ? dependencyOutputs(leaf.goal, leaf.slot) : null
    if (!leaf || !dependencies || !leaf.slot.capability) {
      peer.work.set(claim.requestId, claim) // not runnable yet: keep holding
      return
    }
    // sent back by the author (issue 27): their note and the output it replaces
    const redone = leaf.slot.superseded.at(-1)
    startLlm(peer, fx, work, {
      kind: 'execute',
      path: leaf.goal.path,
      task: leaf.slot.text,
      capability: leaf.slot.capability,
      // the tool group it needs: this executor announces it, or it would not have claimed it
      ...(leaf.slot.tool ? { tool: leaf.slot.tool } : {}),
      dependencies,
      ...(redone
        ? { redo: { note: redone.redo.note, previous: redone.task.result?.output ?? null } }
        : {}),
    })
  } else if (task.type === 'rollup') {
    const goal = plan.rollups.get(task.id)
    if (!goal) return
    startLlm(peer, fx, work, {
      kind: 'rollup',
      path: goal.path,
      parts: goal.slots.map((slot) => ({
        text: slot.text,
        output: slot.output ?? '(not done: this part failed or was cancelled)',
      })),
    })
  }
}

function stillWanted(peer: PeerState, task: TaskState): boolean {
  if (task.type === 'decide' || task.status === 'done' || task.status === 'failed') return false
  const plan = derived(peer)
  const goal = task.type === 'execute' ? plan.leaves.get(task.id)?.goal : plan.rollups.get(task.id)
  return goal !== undefined && !goal.cancelled
}

/** Publish a finished call's result (or failure), if this peer still holds the task. */
function publish(peer: PeerState, fx: Effects, work: Work, outcome: LlmOutcome): void {
  const task = derived(peer).tasks.get(work.task!)
  if (!task || !isHolder(peer, task, work.epoch) || task.result) {
    if (outcome.ok) peer.counters.wastedExecutions++
    fx.events.push({
      type: 'output-dropped',
      request: work.requestId,
      kind: work.kind,
      why: 'lost the task meanwhile',
    })
    return
  }
  if (outcome.ok && (outcome.kind === 'execute' || outcome.kind === 'rollup')) {
    peer.counters.executed.push(task.id)
    const value = outcome.value as { output: string; steps?: Step[] }
    const draft = {
      kind: 'result' as const,
      task: task.id,
      epoch: work.epoch!,
      output: clip(value.output, MAX_OUTPUT),
      usage: outcome.usage,
    }
    // What this executor ran and searched goes out as data (the steps): no
    // peer that receives the record runs its code; it only shows it as text.
    const steps = fitSteps(draft, value.steps ?? [])
    emit<ResultRecord>(peer, fx, steps.length > 0 ? { ...draft, steps } : draft)
  } else {
    // give the task back: another executor may try it in the next epoch
    emit<FailureRecord>(peer, fx, {
      kind: 'failure',
      subject: task.id,
      stage: task.type === 'rollup' ? 'rollup' : 'execute',
      epoch: work.epoch!,
      index: -1,
      ...failureFields(outcome),
      usage: outcome.usage,
    })
  }
}

/**
 * The capability under which this executor may take a leaf needing `needed`,
 * or null. Its own, if it offers it. A code leaf that no live executor can
 * run (`offered`: the room's, this peer's included) an executor whose person
 * wanted code run but whose model cannot (`writesUnrunCode`) takes as a text
 * writer: the prompt says it cannot run code and the result carries no run
 * step, so nothing claims a run (a server that refuses tools would otherwise
 * leave every code leaf waiting). Without that consent a code leaf waits,
 * flagged as a capability gap with its one-click fix; a live-data leaf has
 * no fallback (an answer from knowledge needs its own consent).
 */
export function claimAs(
  needed: Capability,
  mine: readonly Capability[],
  offered: readonly Capability[],
  writesUnrunCode: boolean,
): Capability | null {
  if (mine.includes(needed)) return needed
  if (
    writesUnrunCode &&
    needed === 'can_run_code' &&
    !offered.includes('can_run_code') &&
    mine.includes('can_write_text')
  ) {
    return 'can_write_text'
  }
  return null
}

/** Does this executor announce the tool group a leaf needs (none needed: yes)? */
export function hasToolGroup(tools: PeerState['config']['tools'], needed: string | null): boolean {
  return needed === null || (tools ?? []).some((group) => group.name === needed)
}

export const executor: RoleLogic = {
  onLlm(peer, fx, work, outcome, now) {
    if (!mayPublish(peer, work, now)) {
      // lapsed: hold the answer until the neighbours have had their say (lapse.ts)
      peer.work.set(work.requestId, { ...work, outcome })
      return
    }
    publish(peer, fx, work, outcome)
  },

  reconcile(peer, fx, now) {
    const plan = derived(peer)
    const capabilities = peer.config.capabilities
    const offered = roomCapabilities(peer, now)
    for (const goal of plan.goals.values()) {
      if (goal.cancelled) continue
      for (const slot of goal.slots) {
        const task = slot.execute
        const as = slot.capability
          ? claimAs(slot.capability, capabilities, offered, peer.config.writesUnrunCode ?? false)
          : null
        // a leaf that needs a tool group goes only to an executor announcing it (issue 57)
        if (!task || !as || !hasToolGroup(peer.config.tools, slot.tool)) continue
        const want = {
          role: 'executor' as const,
          capability: as,
          ...(slot.tool ? { tool: slot.tool } : {}),
        }
        // a gap's leaf an executor offering its capability may still take (plan/gap.ts)
        if (slot.status === 'open' || slot.status === 'claimed' || gapRevivable(goal, slot)) {
          maybeClaim(peer, fx, task, want, now)
        }
      }
      if (readyToRollUp(goal) && capabilities.includes('can_write_text')) {
        maybeClaim(peer, fx, goal.rollup, { role: 'executor', capability: 'can_write_text' }, now)
      }
    }
    // drops work (held answers too) on tasks this peer no longer holds
    reviewClaims(
      peer,
      fx,
      now,
      (claim, task) => begin(peer, fx, claim, task),
      (task) => stillWanted(peer, task),
    )
    // held answers of lapsed work that still holds, once the neighbours had their say
    for (const work of clearedAnswers(peer, now)) publish(peer, fx, work, work.outcome!)
  },
}
