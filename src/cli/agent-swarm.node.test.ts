/**
 * The terminal user's swarm, end to end: a real relay and app server, and
 * the built agent as child processes, as `npm run agent` runs them. A room
 * is made with --new-room; every agent joins with --invite alone (the link
 * names the app); the offline model does the work. The observer's stdout
 * must show the tree filling in and the final plan, and the agent that
 * submitted the goal (a scorer: --goal works with any role) must say it is
 * done and where the plan is, and the file must be there.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRunner, agentWorld, until, type AgentWorld } from './agent-process.test-support'
import { FINAL_PLAN_END, FINAL_PLAN_START } from './observer-print'

const GOAL = 'Plan a picnic by the river'
/**
 * How long the observer may take to print the final plan: about 20 s on an
 * idle two-core machine, 45 s with a dozen other test processes on it.
 */
const OBSERVER_WAIT_MS = 80_000
const runner = agentRunner()
const agent = (args: string[]) => runner.agent(args)

let world: AgentWorld
let dir: string
beforeAll(async () => {
  world = await agentWorld('murmuration-swarm-')
  dir = world.dir
}, 60_000)
afterAll(async () => {
  runner.kill()
  await world?.close()
})

describe('a swarm of headless agents, as a terminal user runs it', () => {
  it(
    'makes a room, joins it by its invite alone, and finishes a goal that the observer prints',
    async () => {
      const origin = world.origin
      const made = agent(['--new-room', 'picnic', '--app', origin])
      expect(await made.exit).toBe(0)
      const invite = made.stdout().trim()
      expect(invite.startsWith(`${origin}/#room=picnic&key=`)).toBe(true)

      const plans = join(dir, 'plans')
      const join_ = (role: string, name: string, ...more: string[]) =>
        agent([
          ...['--role', role, '--invite', invite, '--data', join(dir, name)],
          ...['--rtc-bind', '127.0.0.1', ...more],
        ])
      // no --app anywhere: each agent finds the relay through the app the link names
      const observer = join_('observer', 'observer')
      const others = [
        join_('decomposer', 'decomposer'),
        join_('scorer', 'scorer-1'),
        join_('executor', 'executor'),
      ]
      const submitter = join_('scorer', 'scorer-2', '--goal', GOAL, '--plans', plans)
      const everyone = [observer, ...others, submitter]
      const said = () =>
        everyone.map((run) => `--- stdout\n${run.stdout()}\n--- stderr\n${run.stderr()}`).join('\n')

      await until(
        () => observer.stdout().includes(FINAL_PLAN_END),
        () => `the observer's final plan:\n${said()}`,
        OBSERVER_WAIT_MS,
      )
      const seen = observer.stdout()
      // the tree as it grew: a new goal, then changes, then the goal done with every mark done.
      // The goal is new to the observer when first printed; how far it got by then is a race
      // (a CI run printed it already scoring its first split)
      expect(seen).toMatch(
        /\d\d:\d\d:\d\d New goal\n\[[ ~]\] Plan a picnic by the river \(by …\w{6}\)/,
      )
      const end = seen.slice(seen.indexOf('Goal done:'))
      const tree = end.slice(0, end.indexOf(FINAL_PLAN_START)).trim().split('\n').slice(1)
      expect(tree[0]).toMatch(/^\[✓\] Plan a picnic by the river \(by …\w{6}\): done$/)
      const marks = tree.filter((line) => /^\s*\[.\] /.test(line))
      expect(marks.length).toBeGreaterThan(3)
      for (const line of marks) expect(line).toMatch(/^\s*\[✓\] /)
      expect(tree.some((line) => line.includes('(winner)'))).toBe(true)
      expect(tree.some((line) => /done by …\w{6}$/.test(line))).toBe(true)
      // then the final plan, as the Markdown export has it
      expect(end).toContain(`${FINAL_PLAN_START} “${GOAL}” (Markdown)`)
      expect(end).toContain(`# ${GOAL}\n`)
      expect(end).toContain('## How the swarm split it')

      // the scorer that submitted it says so, and where the plan is
      await until(
        () => /goal done: /.test(submitter.stdout()),
        () => `the submitter's end:\n${said()}`,
        15_000,
      )
      const line = /goal done: “(.+)” \((\d+) of (\d+) leaves done\); plan written to (.+)$/m.exec(
        submitter.stdout(),
      )
      expect(line?.[1]).toBe(GOAL)
      expect(line?.[2]).toBe(line?.[3])
      const path = line![4]!
      expect(path.startsWith(plans)).toBe(true)
      expect(existsSync(path)).toBe(true)
      expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^# ${GOAL}\n`))

      // the executor said which leaves it took, by number and text
      const executor = others[2]!.stdout()
      expect(executor).toMatch(
        /\d\d:\d\d:\d\d working on leaf \d+(\.\d+)* “.+” of “Plan a picnic by the river”/,
      )

      // and each thing it did once, when it did it: a claim per leaf at least (a roll-up is
      // claimed too), and the times only go forward (nothing printed again, issue 56)
      const count = (pattern: RegExp) => executor.split('\n').filter((l) => pattern.test(l)).length
      expect(count(/ Claimed a task/)).toBeGreaterThanOrEqual(count(/ working on leaf /))
      for (const run of everyone) {
        const times = [...run.stdout().matchAll(/^(\d\d:\d\d:\d\d) /gm)].map((m) => m[1]!)
        expect(times, said()).toEqual([...times].sort())
      }

      // the network's chatter stayed out of the terminal
      for (const run of everyone) expect(run.stdout()).not.toMatch(/\{"peer":/)
    },
    OBSERVER_WAIT_MS + 30_000,
  )
})
