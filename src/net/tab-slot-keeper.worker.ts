/**
 * Answers identity roll calls for its tab (tab-slots-rollcall.browser.ts)
 * from its own thread, so that a page busy with a long task still says
 * "mine" in time. It lives exactly as long as its page (or until released).
 */
import type { KeeperCommand, KeeperReport } from './tab-slots-rollcall.browser'

let channel: BroadcastChannel | undefined

self.onmessage = ({ data }: MessageEvent<KeeperCommand>) => {
  channel?.close()
  channel = undefined
  if ('release' in data) return
  const { slot } = data
  const open = new BroadcastChannel(data.channel)
  open.onmessage = ({ data: msg }: MessageEvent<{ t?: string; from?: unknown }>) => {
    if (msg?.t === 'who' && typeof msg.from === 'string') {
      open.postMessage({ t: 'mine', to: msg.from, slot })
    }
  }
  channel = open
  // its page hands the slot on only now (see tab-slots-rollcall.browser.ts)
  self.postMessage({ listening: slot } satisfies KeeperReport)
}
