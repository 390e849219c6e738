import { stamp, type Draft, type Presence } from '../protocol/records'

type Fields = Omit<Draft<Presence>, 'kind'>

/** A presence beat for role tests: an idle, healthy peer unless `fields` say otherwise. */
export function testBeat(fields: Pick<Presence, 'from' | 'role'> & Partial<Fields>): Presence {
  return stamp<Presence>({
    kind: 'presence',
    room: 'sim',
    capabilities: [],
    holding: [],
    load: 0,
    capacity: 4,
    healthy: true,
    model: 'm',
    offline: true,
    boot: 0,
    seq: 1,
    every: 5_000,
    ...fields,
  })
}
