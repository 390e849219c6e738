/**
 * The runtime's events (RuntimeEvents): what the UI, the terminal and tests
 * listen to. Listeners are called in the order they subscribed.
 */
import type { RuntimeEvents } from './types'

type Listener<E extends keyof RuntimeEvents> = (detail: RuntimeEvents[E]) => void

export class RuntimeEmitter {
  private readonly listeners = new Map<keyof RuntimeEvents, Set<Listener<keyof RuntimeEvents>>>()

  emit<E extends keyof RuntimeEvents>(event: E, detail: RuntimeEvents[E]): void {
    for (const cb of this.listeners.get(event) ?? []) (cb as Listener<E>)(detail)
  }

  /** subscribes `cb`; the function returned unsubscribes it */
  on<E extends keyof RuntimeEvents>(event: E, cb: Listener<E>): () => void {
    let set = this.listeners.get(event)
    if (!set) this.listeners.set(event, (set = new Set()))
    set.add(cb as Listener<keyof RuntimeEvents>)
    return () => set.delete(cb as Listener<keyof RuntimeEvents>)
  }
}
