/**
 * Defence in depth for the sandbox Worker: before any program runs, take
 * away every way out of the worker: network, storage, other workers. The
 * guest inside QuickJS cannot reach these anyway (it sees no host object);
 * this is for the day a bug lets it out of the engine.
 */

/** Globals removed from the worker (and from its prototypes). */
export const LOCKED_GLOBALS = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'WebTransport',
  'EventSource',
  'RTCPeerConnection',
  'RTCDataChannel',
  'importScripts',
  'indexedDB',
  'caches',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  'webkitRequestFileSystem',
  'webkitRequestFileSystemSync',
  'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL',
] as const

/** Properties removed from the worker's navigator (and its prototypes). */
export const LOCKED_NAVIGATOR = [
  'storage',
  'locks',
  'serviceWorker',
  'usb',
  'serial',
  'hid',
] as const

/**
 * Removes LOCKED_GLOBALS from `scope` and LOCKED_NAVIGATOR from its
 * navigator, on the objects and up their prototype chains. Returns the
 * names still reachable afterwards (none in Chromium): the caller refuses to
 * run code when any are.
 */
export function lockDown(scope: object): string[] {
  for (const name of LOCKED_GLOBALS) remove(scope, name)
  const navigator = (scope as { navigator?: object }).navigator
  if (navigator !== undefined) for (const name of LOCKED_NAVIGATOR) remove(navigator, name)
  const left: string[] = LOCKED_GLOBALS.filter((name) => reachable(scope, name))
  if (navigator !== undefined)
    for (const name of LOCKED_NAVIGATOR)
      if (reachable(navigator, name)) left.push(`navigator.${name}`)
  return left
}

function remove(target: object, name: string): void {
  for (
    let on: object | null = target;
    on !== null;
    on = Object.getPrototypeOf(on) as object | null
  ) {
    if (!Object.prototype.hasOwnProperty.call(on, name)) continue
    if (Reflect.deleteProperty(on, name)) continue
    // not configurable: make it useless where it can be written
    try {
      Object.defineProperty(on, name, { value: undefined })
    } catch {
      Reflect.set(on, name, undefined)
    }
  }
}

function reachable(target: object, name: string): boolean {
  try {
    return (target as Record<string, unknown>)[name] !== undefined
  } catch {
    return false
  }
}
