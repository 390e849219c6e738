import { rendezvousOrder } from '../protocol/hash'
import { PlanState } from '../plan/state'
import { createRng } from '../sim/rng'
import { fakePeerId } from '../sim/swarm'
import { testBeat } from './beat.test-support'
import { createPeer, step, type Effects, type PeerConfig, type PeerInput } from './index'

const ALL = ['can_write_text', 'can_run_code', 'can_query_api'] as const
/** local time at the start of a scenario */
export const T0 = 1_700_000_000_000

/** A peer of role tests: capacity 4, the offline model 'm', in room 'sim'. */
export function testConfig(
  peerId: string,
  role: PeerConfig['role'],
  capabilities: PeerConfig['capabilities'] = [],
): PeerConfig {
  return { peerId, room: 'sim', role, capabilities, capacity: 4, model: 'm', offline: true }
}

/**
 * An executor alone with one open leaf of `plan` and a live rival, ranked
 * for the leaf `first` or `second`. Each `run` is one step `ms` after the
 * last, with a beat of the rival that never says it holds the leaf (as if
 * its claim was lost); `freeze` moves the clock on without a step.
 */
export function executorWithRival(
  open: { plan: PlanState; task: string },
  me: 'first' | 'second',
  seed: string,
) {
  const rng = createRng(seed)
  const [first, second] = rendezvousOrder(open.task, [fakePeerId(rng), fakePeerId(rng)])
  const [self, rival] = me === 'first' ? [first!, second!] : [second!, first!]
  const plan = new PlanState()
  plan.merge(open.plan)
  const peer = createPeer(testConfig(self, 'executor', [...ALL]), T0, plan)
  let now = T0
  let seq = 0
  const fx: Effects[] = []
  const beat = () =>
    testBeat({ from: rival, role: 'executor', capabilities: [...ALL], boot: T0, seq: ++seq })
  const run = (inputs: PeerInput[] = [{ type: 'tick' }], ms = 250) => {
    now += ms
    const effects = step(peer, [{ type: 'presence', presence: beat() }, ...inputs], now)
    fx.push(effects)
    return effects
  }
  const freeze = (ms: number) => {
    now += ms
  }
  return { peer, rival, run, fx, freeze, now: () => now }
}

/** Did any of these steps start an LLM call for `task`? */
export function startedOn(fx: readonly Effects[], task: string): boolean {
  return fx.some((e) => e.startLlm.some((request) => request.id.includes(task)))
}
