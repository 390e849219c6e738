/**
 * What the person did to the plan tree: which nodes they opened or closed,
 * which one has keyboard focus and which one is selected (shown in detail).
 * Nodes deeper than `autoDepth` start closed, so a 1,000-node plan renders
 * only its top levels until someone opens more.
 */
import { SvelteMap } from 'svelte/reactivity'

/** Levels open by default: the root goal, its subgoals, and theirs. */
export const AUTO_OPEN_DEPTH = 2

export class TreeState {
  readonly autoDepth: number
  private readonly overrides = new SvelteMap<string, boolean>()
  focused = $state<string | null>(null)
  selected = $state<string | null>(null)

  constructor(autoDepth = AUTO_OPEN_DEPTH) {
    this.autoDepth = autoDepth
  }

  isOpen(id: string, depth: number): boolean {
    return this.overrides.get(id) ?? depth < this.autoDepth
  }

  setOpen(id: string, open: boolean): void {
    this.overrides.set(id, open)
  }

  /** Opens every node (for people who want the whole tree at once). */
  openAll(ids: Iterable<string>): void {
    for (const id of ids) this.overrides.set(id, true)
  }

  closeAll(): void {
    this.overrides.clear()
  }

  select(id: string): void {
    this.focused = id
    this.selected = id
  }
}

// Not reactive on purpose: a lookup table of per-goal states, never rendered itself.
// eslint-disable-next-line svelte/prefer-svelte-reactivity
const states = new Map<string, TreeState>()

/** The tree state of one root goal's plan, kept while the page lives. */
export function treeStateFor(goalId: string): TreeState {
  let state = states.get(goalId)
  if (!state) states.set(goalId, (state = new TreeState()))
  return state
}
