/**
 * Structural sharing between two snapshots of the plan tree.
 *
 * The runtime sends a whole new PlanTree (plain JSON from the worker) on
 * every change. If the UI took it as is, every component would see new
 * objects and re-render, even for parts that did not change. Instead we keep
 * the previous object wherever the new one is deeply equal, so Svelte's
 * identity checks (keyed each blocks, $state.raw, props) skip unchanged
 * subtrees: an update costs a walk over the data, not a re-render of the tree.
 */

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function shareStructure<T>(prev: T | undefined, next: T): T {
  return share(prev as unknown, next as unknown) as T
}

function share(prev: unknown, next: unknown): unknown {
  if (Object.is(prev, next)) return prev
  if (Array.isArray(prev) && Array.isArray(next)) return shareArray(prev, next)
  if (isObject(prev) && isObject(next)) return shareObject(prev, next)
  return next
}

function shareArray(prev: unknown[], next: unknown[]): unknown[] {
  // items are matched by position: the tree's lists only grow at the end
  // (proposals, votes) or have a fixed order (slots by index)
  let same = prev.length === next.length
  const out = next.map((item, i) => {
    const shared = i < prev.length ? share(prev[i], item) : item
    if (shared !== prev[i]) same = false
    return shared
  })
  return same ? prev : out
}

function shareObject(
  prev: Record<string, unknown>,
  next: Record<string, unknown>,
): Record<string, unknown> {
  const keys = Object.keys(next)
  let same = keys.length === Object.keys(prev).length
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    const shared = key in prev ? share(prev[key], next[key]) : next[key]
    if (shared !== prev[key]) same = false
    out[key] = shared
  }
  return same ? prev : out
}
