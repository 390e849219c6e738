/**
 * This peer's work: the LLM calls it starts and aborts, the tasks it holds,
 * and the slots they take (its beats say both).
 */
import type { LlmTask } from './llm-contract'
import type { PeerState, Work } from './peer'
import type { Effects } from './types'

export function startLlm(peer: PeerState, fx: Effects, work: Work, task: LlmTask): void {
  work.llm = task
  work.started = true
  work.generation = peer.modelGeneration
  peer.work.set(work.requestId, work)
  peer.counters.llmCalls[task.kind]++
  fx.startLlm.push({ id: work.requestId, task })
  fx.events.push({ type: 'llm-started', request: work.requestId, kind: task.kind })
}

export function abortWork(peer: PeerState, fx: Effects, work: Work, why: string): void {
  peer.work.delete(work.requestId)
  if (work.started) {
    peer.counters.aborted++
    // a held-back answer's call has already ended: nothing to abort there
    if (!work.outcome) fx.abortLlm.push(work.requestId)
    fx.events.push({ type: 'llm-aborted', request: work.requestId, kind: work.kind, why })
  }
}

/**
 * Slots in use (a beat's `load`). A held decide claim takes none: it is no
 * call (its classification calls are work of their own), and a decider
 * holds the task from the goal's first proposal until the votes allow an
 * accept, while it should go on scoring.
 */
export function usedSlots(peer: PeerState): number {
  let used = 0
  for (const work of peer.work.values()) if (!isDecideClaim(work)) used++
  return used
}

export function freeSlots(peer: PeerState): number {
  return peer.config.capacity - usedSlots(peer)
}

/** The placeholder of a decide claim (claims.ts): deciding makes no LLM call. */
function isDecideClaim(work: Work): boolean {
  return work.kind === 'decide'
}

/** The tasks this peer holds (a beat's `holding`). */
export function heldTasks(peer: PeerState): string[] {
  const holding = [...peer.work.values()]
    .map((work) => work.task)
    .filter((task): task is string => task !== undefined)
  return [...new Set(holding)].slice(0, 64)
}
