/**
 * Starts this tab's peer. In production that is the real browser runtime
 * (src/runtime/browser.ts). In development only, `?fake=1` swaps in a
 * simulator replay (src/ui/dev/fake-runtime.ts) for work on the UI without a
 * relay; `import.meta.env.DEV` is false in builds, so that branch and its
 * module are dropped from the production bundle.
 */
import type { PeerRuntime, RuntimeInit } from '../../runtime/types'

export async function startRuntime(init: RuntimeInit): Promise<PeerRuntime> {
  if (import.meta.env.DEV && new URLSearchParams(window.location.search).has('fake')) {
    const { createFakeRuntime } = await import('../dev/fake-runtime')
    return createFakeRuntime(init)
  }
  // loaded on demand: the start screen shows before libp2p is parsed
  const { createBrowserRuntime } = await import('../../runtime/browser')
  return createBrowserRuntime(init)
}
