/**
 * DEV ONLY: measurements of the plan view under load, run by the UI lab.
 * Each update is what the runtime does on a real change: a whole new tree
 * (as if posted from the worker) with one leaf finished, merged into the
 * previous one by shareStructure and rendered.
 */
import { flushSync } from 'svelte'
import type { PlanTree, SlotView } from '../../plan/tree'

export interface BenchResult {
  nodes: number
  rows: number
  expandAllMs: number
  updates: number
  updateMs: { median: number; p95: number; max: number }
  /** DOM nodes added, removed or changed per update: small means only the changed path re-rendered */
  mutationsPerUpdate: { median: number; max: number }
  frames: { count: number; p95Ms: number; maxMs: number }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
}

/** A copy of the tree with its n-th unfinished leaf done. */
export function finishOneLeaf(tree: PlanTree, n: number): PlanTree {
  const copy = structuredClone(tree)
  const open: SlotView[] = []
  const stack = [...copy.goals]
  while (stack.length) {
    const goal = stack.pop()!
    for (const slot of goal.slots) {
      if (slot.goal) stack.push(slot.goal)
      else if (slot.leaf && slot.status !== 'done') open.push(slot)
    }
  }
  const slot = open[n % Math.max(open.length, 1)]
  if (slot?.leaf) {
    slot.status = 'done'
    slot.leaf.status = 'done'
    slot.leaf.output = `Finished in update ${n}.`
    slot.leaf.resultBy = slot.leaf.holder ?? '12D3KooWLabPeer00'
  }
  return copy
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve))

export async function runBench(options: {
  nodes: number
  root: HTMLElement
  expandAll: () => void
  getTree: () => PlanTree
  setTree: (tree: PlanTree) => void
  updates: number
  intervalMs: number
}): Promise<BenchResult> {
  let t0 = performance.now()
  options.expandAll()
  flushSync()
  const expandAllMs = performance.now() - t0
  await nextFrame()

  let mutations = 0
  const observer = new MutationObserver((records) => {
    for (const r of records)
      mutations += r.addedNodes.length + r.removedNodes.length + (r.type === 'childList' ? 0 : 1)
  })
  observer.observe(options.root, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
  })

  const updateTimes: number[] = []
  const mutationCounts: number[] = []
  const frameDeltas: number[] = []
  let running = true
  let last = await nextFrame()
  void (async () => {
    while (running) {
      const now = await nextFrame()
      frameDeltas.push(now - last)
      last = now
    }
  })()
  for (let i = 0; i < options.updates; i++) {
    const next = finishOneLeaf(options.getTree(), i)
    mutations = 0
    t0 = performance.now()
    options.setTree(next)
    flushSync()
    updateTimes.push(performance.now() - t0)
    observer
      .takeRecords()
      .forEach(
        (r) =>
          (mutations +=
            r.addedNodes.length + r.removedNodes.length + (r.type === 'childList' ? 0 : 1)),
      )
    mutationCounts.push(mutations)
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs))
  }
  running = false
  observer.disconnect()

  const sortedUpdates = [...updateTimes].sort((a, b) => a - b)
  const sortedMutations = [...mutationCounts].sort((a, b) => a - b)
  const sortedFrames = [...frameDeltas].sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 10) / 10
  return {
    nodes: options.nodes,
    rows: options.root.querySelectorAll('[role="treeitem"]').length,
    expandAllMs: round(expandAllMs),
    updates: updateTimes.length,
    updateMs: {
      median: round(quantile(sortedUpdates, 0.5)),
      p95: round(quantile(sortedUpdates, 0.95)),
      max: round(sortedUpdates.at(-1) ?? NaN),
    },
    mutationsPerUpdate: {
      median: quantile(sortedMutations, 0.5),
      max: sortedMutations.at(-1) ?? NaN,
    },
    frames: {
      count: frameDeltas.length,
      p95Ms: round(quantile(sortedFrames, 0.95)),
      maxMs: round(sortedFrames.at(-1) ?? NaN),
    },
  }
}
