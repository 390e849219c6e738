/**
 * A leaf that needs a tool group goes only to an executor announcing it
 * (issue 57): the executor with the group claims it and starts it with the
 * group named; an executor without it never claims it, even ranked first
 * among all executors; and each announces (or not) its groups in its beats.
 */
import { describe, expect, it } from 'vitest'
import { nodeId, taskId } from '../protocol/ids'
import type { Judgement, Presence } from '../protocol/records'
import type { ToolGroup } from '../protocol/tool-groups'
import { acceptedSplit, peer as peerId } from '../plan/split.test-support'
import { PlanState } from '../plan/state'
import { createPeer, step, type Effects, type PeerState } from './index'
import { offeredToolGroups } from './view'
import { derivePlan } from '../plan/derive'
import { projectTree } from '../plan/tree'
import { testConfig, T0 } from './leaf.test-support'

const FILES: ToolGroup = {
  name: 'files',
  tools: [
    { name: 'read_text_file', readOnly: true, destructive: false, openWorld: false, anyone: true },
  ],
}
const needsFiles: Judgement = { atomic: true, capability: 'can_write_text', tool: 'files' }
const plain: Judgement = { atomic: true, capability: 'can_write_text' }

function room() {
  const split = acceptedSplit(2, 1, [
    [needsFiles, plain],
    [needsFiles, plain],
  ])
  const task = (index: number) =>
    taskId(
      'execute',
      nodeId(split.goal.id, split.proposal.id, index, split.proposal.subgoals[index]!.text, true),
    )
  const executor = (name: string, tools?: ToolGroup[]) => {
    const plan = new PlanState()
    plan.merge(split.plan)
    const config = testConfig(peerId(name), 'executor', ['can_write_text'])
    return createPeer(tools ? { ...config, tools } : config, T0, plan)
  }
  return { task, withTool: executor('WithFs', [FILES]), without: executor('Nothing') }
}

/** Both executors step together for `steps` ticks, each hearing the other's beats. */
function run(peers: PeerState[], steps = 40): Map<PeerState, Effects[]> {
  const fx = new Map<PeerState, Effects[]>(peers.map((p) => [p, []]))
  let beats: Presence[] = []
  for (let i = 1; i <= steps; i++) {
    const heard = beats
    beats = []
    for (const peer of peers) {
      const inputs = heard
        .filter((b) => b.from !== peer.config.peerId)
        .map((presence) => ({ type: 'presence' as const, presence }))
      const effects = step(peer, [...inputs, { type: 'tick' }], T0 + i * 250)
      fx.get(peer)!.push(effects)
      for (const record of effects.publish) if (record.kind === 'presence') beats.push(record)
    }
    // claims reach the other peer's plan as gossip would
    for (const peer of peers)
      for (const effects of fx.get(peer)!.slice(-1))
        for (const record of effects.publish)
          if (record.kind !== 'presence')
            for (const other of peers)
              if (other !== peer) step(other, [{ type: 'record', record }], T0 + i * 250)
  }
  return fx
}

const claimsOf = (fx: Effects[]) =>
  fx.flatMap((e) => e.publish).flatMap((r) => (r.kind === 'claim' ? [r.task] : []))

describe('a leaf that needs a tool group', () => {
  it('is claimed only by the executor that announces the group, and run with the group named', () => {
    const { task, withTool, without } = room()
    const fx = run([withTool, without])
    expect(claimsOf(fx.get(withTool)!)).toContain(task(0))
    expect(claimsOf(fx.get(without)!)).not.toContain(task(0))
    const started = fx
      .get(withTool)!
      .flatMap((e) => e.startLlm)
      .find((request) => request.id.includes(task(0)))
    expect(started?.task).toMatchObject({ kind: 'execute', tool: 'files' })
    // the plain leaf is anyone's, and its task names no group
    const plainTask = [...fx.values()]
      .flat()
      .flatMap((e) => e.startLlm)
      .find((request) => request.id.includes(task(1)))
    expect(plainTask?.task.kind).toBe('execute')
    expect(plainTask && 'tool' in plainTask.task).toBe(false)
  })

  it('waits unclaimed while nobody announces the group', () => {
    const { task, without } = room()
    const fx = run([without])
    expect(claimsOf(fx.get(without)!)).toEqual([task(1)])
  })

  it('is what the beats say: the group announced by one, nothing by the other', () => {
    const { withTool, without } = room()
    const fx = run([withTool, without], 4)
    const beatOf = (peer: PeerState) =>
      fx
        .get(peer)!
        .flatMap((e) => e.publish)
        .find((r): r is Presence => r.kind === 'presence')
    expect(beatOf(withTool)?.tools).toEqual([FILES])
    expect(beatOf(without)?.tools).toBeUndefined()
    // and the room's groups, as the other executor hears them
    expect(offeredToolGroups(without.view, without.config, T0 + 1_000)).toEqual([FILES])
  })
})

describe('a leaf whose tool group nobody offers', () => {
  it('says so at once in the tree, and stops saying so when an executor announces the group', () => {
    const { withTool } = room()
    const tree = (tools: string[]) =>
      projectTree(derivePlan(withTool.plan), withTool.plan, undefined, {
        capabilities: ['can_write_text'],
        tools,
      })
    const missing = tree([]).goals[0]!
    expect(missing.slots.map((s) => s.toolGap)).toEqual([{ tool: 'files' }, null])
    expect(missing.missingTools).toEqual(['files'])
    const offered = tree(['files']).goals[0]!
    expect(offered.slots.map((s) => s.toolGap)).toEqual([null, null])
    expect(offered.missingTools).toEqual([])
  })
})
