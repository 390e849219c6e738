/**
 * GossipSub on the limited connections that are links of ours, and on no
 * other.
 *
 * libp2p marks a relayed connection limited (the relay ends it after a
 * duration or a number of bytes), and a protocol runs on one only when its
 * handler and its streams say `runOnLimitedConnection`. GossipSub has one
 * switch for all of them: on, it would also gossip over every signalling
 * link of a WebRTC dial, through the relay, and lose its stream to the peer
 * when that link closes a few seconds later. A link through the relay of a
 * peer that cannot link directly (fallback.ts) must carry gossip. So
 * GossipSub runs with the switch on, and sees the registrar through this
 * filter: a limited connection that is not such a link never reaches its
 * topology, and its inbound streams there are refused.
 */
import type { Connection, Stream } from '@libp2p/interface'
import type { GossipSubComponents } from '@libp2p/gossipsub'

type Registrar = GossipSubComponents['registrar']

/** Whether a limited connection carries the room's traffic. */
export type CarriesTraffic = (conn: Connection) => boolean

/** The registrar as GossipSub should see it: limited connections only where `carries` says. */
export function linksOnlyRegistrar(registrar: Registrar, carries: CarriesTraffic): Registrar {
  const allowed = (conn: Connection) => conn.limits == null || carries(conn)
  return new Proxy(registrar, {
    get(target, prop, receiver) {
      if (prop === 'handle') {
        return (protocol: string, handler: (s: Stream, c: Connection) => void, options?: object) =>
          target.handle(
            protocol,
            (stream, conn) => {
              if (allowed(conn)) return handler(stream, conn)
              stream.abort(new Error('not a link of ours: a relayed signalling connection'))
            },
            options,
          )
      }
      if (prop === 'register') {
        return (protocol: string, topology: Parameters<Registrar['register']>[1]) =>
          target.register(protocol, {
            ...topology,
            onConnect: (peer, conn) =>
              allowed(conn) ? topology.onConnect?.(peer, conn) : undefined,
          })
      }
      const value: unknown = Reflect.get(target, prop, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** GossipSub's components, with the registrar seen through linksOnlyRegistrar. */
export function linksOnlyComponents(
  components: GossipSubComponents,
  carries: CarriesTraffic,
): GossipSubComponents {
  const registrar = linksOnlyRegistrar(components.registrar, carries)
  return new Proxy(components, {
    get: (target, prop, receiver) =>
      prop === 'registrar' ? registrar : Reflect.get(target, prop, receiver),
  })
}
