/**
 * A child process hosting some of the swarm's peers (a LocalHost behind
 * IPC). Spreading peers over processes lets a swarm use more than one core.
 * Started by RemoteHost (remote.ts); exits when told to stop or when its
 * parent goes away.
 */
import { setMaxListeners } from 'node:events'
import { LocalHost, type HostInit, type PeerHost } from './host'
import type { HostRequest, HostResponse } from './remote'

// libp2p hangs many listeners on shared abort signals; 64 peers in one process exceed the default 10
setMaxListeners(1000)

let host: LocalHost | null = null

function reply(message: HostResponse): void {
  process.send?.(message)
}

async function handle(request: HostRequest): Promise<unknown> {
  if (request.method === 'init') {
    host = new LocalHost(request.args[0] as HostInit)
    return null
  }
  if (!host) throw new Error('host not initialised')
  const method = host[request.method as keyof PeerHost] as (...args: unknown[]) => Promise<unknown>
  return method.apply(host, request.args)
}

process.on('message', (request: HostRequest) => {
  handle(request).then(
    (result) => {
      reply({ id: request.id, ok: true, result })
      if (request.method === 'stop') setTimeout(() => process.exit(0), 50)
    },
    (error: Error) => reply({ id: request.id, ok: false, error: error.message }),
  )
})

// the parent died or closed the channel: stop the peers and leave
process.on('disconnect', () => {
  void (host?.stop() ?? Promise.resolve()).finally(() => process.exit(0))
})
