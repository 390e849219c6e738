/**
 * Issue 56: the built-in offline model on several unrelated goals in one
 * room, through the real swarm (a real relay, two decomposers, two scorers
 * and two executors over real libp2p, the real role code, the offline
 * provider and the Node sandbox). Every answer is about its own leaf and
 * says it is the offline placeholder; no goal's words turn up in another
 * goal's plan; the primes leaf shows the program that ran and its real
 * output (639); a veto's note is visibly taken into the next split and a
 * redo's note into the next answer (the primes redo prints 129, the sum of
 * the first 10).
 */
import { generateKeyPair } from '@libp2p/crypto/keys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelay } from '../relay/relay'
import { PLACEHOLDER_MARK } from '../src/llm/offline-model/execute'
import { silentLogger } from '../src/net/log'
import type { GoalView, SlotView } from '../src/plan/tree'
import { deriveRoomKey, newRoomSecret } from '../src/protocol/room-key'
import { createNodeRuntime } from '../src/runtime/node'
import type { PeerRuntime, Role } from '../src/runtime/types'

const JAPAN = 'Plan a two-week trip to Japan'
const PRIMES = 'Compute the first 20 prime numbers and their sum'
const DOCS = 'Write documentation for a REST API'
const WEDDING = 'Plan a wedding'
/** Words only one goal (or a note on it) brings: no other goal's plan may hold them. */
const OWN_WORDS: Record<string, string[]> = {
  [JAPAN]: ['japan', 'two-week', 'trip', 'korea'],
  [PRIMES]: ['prime', 'primes'],
  [DOCS]: ['documentation', 'rest', 'api'],
  [WEDDING]: ['wedding', 'euros'],
}
const VETO_NOTE = 'Add a week in Korea'
const REDO_NOTE = 'Use euros; cite official sources'
const PRIMES_NOTE = 'Only the first 10 please'
const FIRST_20 = '2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71'

const ROLES: Role[] = ['decomposer', 'decomposer', 'scorer', 'scorer', 'executor', 'executor']
/** Links each of the 6 peers needs before the goals go in: enough for a connected mesh. */
const MIN_LINKS = 3
const MESH_TIMEOUT_MS = 45_000
/** Four plans, a veto and two redos on a shared two-core machine. */
const PLAN_TIMEOUT_MS = 120_000
const POLL_MS = 100

const peers: PeerRuntime[] = []
let relay: Awaited<ReturnType<typeof createRelay>>
/** the goals' authors, the only peers that may veto or redo them (3 goals open at once each) */
const author = () => peers[0]!
const weddingAuthor = () => peers[1]!

async function waitFor(cond: () => boolean, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

const goal = (text: string) =>
  author()
    .tree()
    .goals.find((g) => g.text === text)
const slots = (g: GoalView): SlotView[] =>
  g.slots.flatMap((s) => [s, ...(s.goal ? slots(s.goal) : [])])
const leaves = (g: GoalView) => slots(g).filter((s) => s.leaf)
const done = (text: string) => goal(text)?.status === 'done'
const progress = () =>
  author()
    .tree()
    .goals.map((g) => `${g.text}: ${g.status} ${g.approval}, ${JSON.stringify(g.failedParts)}`)
    .join('; ')

/** Every text of a goal's plan: its splits, votes, leaves (and what they replaced) and roll-ups. */
function texts(g: GoalView): string[] {
  return [
    g.text,
    g.rollup.output ?? '',
    ...g.proposals.flatMap((p) => [
      p.rationale,
      ...p.subgoals.map((s) => s.text),
      ...p.votes.map((v) => v.notes),
    ]),
    ...g.slots.flatMap((s) => [
      s.text,
      s.leaf?.output ?? '',
      ...s.superseded.map((x) => x.task.output ?? ''),
      ...(s.goal ? texts(s.goal) : []),
    ]),
  ]
}

beforeAll(
  async () => {
    relay = await createRelay({
      port: 0,
      privateKey: await generateKeyPair('Ed25519'),
      logger: silentLogger,
    })
    const room = deriveRoomKey('offline-goals', newRoomSecret())
    for (const role of ROLES)
      peers.push(
        await createNodeRuntime({
          room,
          role,
          relays: relay.multiaddrs,
          rtcBindAddress: '127.0.0.1',
          model: { provider: 'offline', model: 'offline-v1' },
          providerInit: { latencyMs: 20 },
          log: () => {},
        }),
      )
    const linked = (p: PeerRuntime) => p.connections().direct + p.connections().other
    await waitFor(
      () => peers.every((p) => linked(p) >= MIN_LINKS),
      MESH_TIMEOUT_MS,
      () => `${MIN_LINKS} links per peer (${peers.map(linked).join(', ')})`,
    )

    // the trip waits for its author's approval; the others run straight through
    await author().submitGoal(JAPAN, 3, 'root')
    await author().submitGoal(PRIMES, 3)
    await author().submitGoal(DOCS, 3)
    await weddingAuthor().submitGoal(WEDDING, 3)

    // the author vetoes the trip's first split with a note, then approves the next one
    await waitFor(() => goal(JAPAN)?.approval === 'waiting', PLAN_TIMEOUT_MS, progress)
    const first = goal(JAPAN)!
    await author().steerGoal({
      kind: 'verdict',
      goal: first.id,
      proposal: first.accepted!.proposal,
      approve: false,
      note: VETO_NOTE,
      retire: [...new Set([...first.proposals.map((p) => p.id), ...first.retired])],
    })
    await waitFor(
      () => goal(JAPAN)?.vetoes.length === 1 && goal(JAPAN)?.approval === 'waiting',
      PLAN_TIMEOUT_MS,
      progress,
    )
    await author().steerGoal({
      kind: 'verdict',
      goal: first.id,
      proposal: goal(JAPAN)!.accepted!.proposal,
      approve: true,
    })
    await waitFor(() => [JAPAN, PRIMES, DOCS, WEDDING].every(done), PLAN_TIMEOUT_MS, progress)

    // then sends a written leaf and the code leaf back, each with a note
    const wedding = leaves(goal(WEDDING)!).find((s) => s.capability === 'can_write_text')!
    const primes = leaves(goal(PRIMES)!).find((s) => s.capability === 'can_run_code')!
    await weddingAuthor().steerGoal({ kind: 'redo', task: wedding.leaf!.id, note: REDO_NOTE })
    await author().steerGoal({ kind: 'redo', task: primes.leaf!.id, note: PRIMES_NOTE })
    const redone = (text: string) =>
      done(text) && leaves(goal(text)!).some((s) => s.superseded.length === 1)
    await waitFor(() => redone(WEDDING) && redone(PRIMES), PLAN_TIMEOUT_MS, progress)
  },
  MESH_TIMEOUT_MS + 4 * PLAN_TIMEOUT_MS,
)

afterAll(async () => {
  await Promise.allSettled(peers.map((p) => p.stop()))
  await relay?.stop()
})

describe('the offline model on four unrelated goals in one room', () => {
  it('finishes every plan: every leaf done, every answer about its own leaf and saying what it is', () => {
    for (const text of Object.keys(OWN_WORDS)) {
      const g = goal(text)!
      expect(g.outcome, text).toBe('complete')
      expect(g.rollup.output!.startsWith(`# ${text}\n\n${PLACEHOLDER_MARK}`)).toBe(true)
      expect(leaves(g).length, text).toBeGreaterThanOrEqual(3)
      for (const slot of leaves(g)) {
        expect(slot.leaf!.status).toBe('done')
        const output = slot.leaf!.output!
        expect(output, slot.text).toContain(PLACEHOLDER_MARK)
        // built from the leaf's own words: it is the answer's heading, whole
        expect(output, slot.text).toContain(`\n## ${slot.text}\n`)
        // and every title is built from its goal's words, whole
        expect(slot.text.startsWith(`${text}: `) || slot.text.startsWith('Follow the author')).toBe(
          true,
        )
      }
    }
  })

  it('carries no goal’s words into another goal’s plan', () => {
    for (const [text, own] of Object.entries(OWN_WORDS)) {
      const plan = texts(goal(text)!).join('\n').toLowerCase()
      for (const [other, words] of Object.entries(OWN_WORDS)) {
        if (other === text) continue
        for (const word of words)
          expect(plan, `${word} in "${text}"`).not.toMatch(new RegExp(`\\b${word}\\b`))
      }
      for (const word of own.slice(0, 1)) expect(plan).toMatch(new RegExp(`\\b${word}\\b`))
    }
  })

  it('documents the REST API in writing: no code leaf, no program', () => {
    for (const slot of leaves(goal(DOCS)!)) {
      expect(slot.capability).toBe('can_write_text')
      expect(slot.leaf!.steps).toBeNull()
      expect(slot.leaf!.output).not.toContain('```js')
    }
  })

  it('computes the primes: the result shows the program that ran and its real output', () => {
    const slot = leaves(goal(PRIMES)!).find((s) => s.capability === 'can_run_code')!
    const before = slot.superseded[0]!.task
    const step = before.steps?.[0]
    expect(step?.type).toBe('code')
    if (step?.type !== 'code') return
    expect(step.exit).toBe(0)
    expect(step.stdout).toBe(`the first 20 prime numbers: ${FIRST_20}\ntheir sum: 639\n`)
    expect(before.output).toContain(`### What ran\n\n\`\`\`js\n${step.code}\n\`\`\``)
    expect(before.output).toContain(`\`\`\`text\n${step.stdout.trim()}\n\`\`\``)
    expect(before.output).toContain(
      'It ran a program that lists the first 20 prime numbers and adds them up',
    )
  })

  it('takes a veto’s note into the next split', () => {
    const g = goal(JAPAN)!
    expect(g.vetoes).toEqual([{ note: VETO_NOTE, subgoals: expect.any(Array) }])
    const accepted = g.proposals.find((p) => p.id === g.accepted!.proposal)!
    expect(accepted.rationale).toContain(`(their note: “${VETO_NOTE}”)`)
    expect(g.slots[0]!.text).toBe(`Follow the author's note: “${VETO_NOTE}”`)
    expect(g.slots.slice(1).every((s) => s.dependsOn.includes(0))).toBe(true)
    expect(g.slots.map((s) => s.text)).not.toEqual(g.vetoes[0]!.subgoals)
  })

  it('takes a redo’s note into the next answer', () => {
    const wedding = leaves(goal(WEDDING)!).find((s) => s.superseded.length === 1)!
    expect(wedding.superseded[0]!.note).toBe(REDO_NOTE)
    expect(wedding.superseded[0]!.task.output).not.toContain('euros')
    expect(wedding.leaf!.output).toContain(`**Redone after the author’s note:** “${REDO_NOTE}”`)
    expect(wedding.leaf!.output).toContain('- [ ] Use euros\n- [ ] cite official sources')

    const primes = leaves(goal(PRIMES)!).find((s) => s.superseded.length === 1)!
    const step = primes.leaf!.steps?.[0]
    expect(step?.type === 'code' && step.stdout).toBe(
      'the first 10 prime numbers: 2, 3, 5, 7, 11, 13, 17, 19, 23, 29\ntheir sum: 129\n',
    )
    expect(primes.leaf!.output).toContain(`**Redone after the author’s note:** “${PRIMES_NOTE}”`)
    expect(primes.leaf!.output).toContain('The program follows what the note names.')
    // the roll-up was written again from the new result
    expect(goal(PRIMES)!.rollup.output).toContain('their sum: 129')
  })
})
