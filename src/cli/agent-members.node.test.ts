/**
 * The owner's member flags end to end (issue 45), as a terminal user runs
 * them: the built agent as child processes, a real relay and app server,
 * real libp2p. --new-room --name prints the owner's link (and the name in
 * the commands it suggests); --invite-person Bob prints Bob's own link; an
 * agent on Bob's link joins; --remove-member Bob makes Bob's agent say it
 * was removed, by the owner's name, and exit 3.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseMemberInvite } from '../protocol/invite'
import { deriveMemberKey } from '../protocol/member-key'
import { EXIT_REMOVED } from './agent-members'
import { agentRunner, agentWorld, until, type AgentWorld } from './agent-process.test-support'

/** How long one step may take on a loaded two-core machine (an agent starts in about 2 s idle). */
const STEP_MS = 30_000

const runner = agentRunner()
let world: AgentWorld
beforeAll(async () => {
  world = await agentWorld('murmuration-members-')
}, 60_000)
afterAll(async () => {
  runner.kill()
  await world?.close()
})

describe("an owner's member flags, as a terminal user runs them", () => {
  it(
    '--new-room, --invite-person Bob, Bob joins, --remove-member Bob: his agent says so and exits 3',
    async () => {
      const { agent } = runner
      const made = agent(['--new-room', 'members-cli', '--name', 'Ada', '--app', world.origin])
      expect(await made.exit).toBe(0)
      const ownerLink = made.stdout().trim()
      const owner = parseMemberInvite(ownerLink)
      expect(deriveMemberKey(owner.me).id).toBe(owner.owner)
      expect(made.stderr()).toContain(`--invite '${ownerLink}' --name 'Ada'`)

      const peer = (name: string, link: string, ...more: string[]) =>
        agent([
          ...['--invite', link, '--data', join(world.dir, name)],
          ...['--rtc-bind', '127.0.0.1', '--role', 'observer', ...more],
        ])
      // the owner's own agent stays in the room (it admits itself as Ada)
      const ownerAgent = peer('owner', ownerLink, '--name', 'Ada')
      const all = [ownerAgent]
      const said = () =>
        all.map((r) => `--- stdout\n${r.stdout()}\n--- stderr\n${r.stderr()}`).join('\n')
      await until(() => /Murmuration observer/.test(ownerAgent.stdout()), said, STEP_MS)

      const invited = peer('owner-invite', ownerLink, '--invite-person', 'Bob')
      all.push(invited)
      expect(await invited.exit).toBe(0)
      expect(invited.stderr()).toMatch(/agent: invited “Bob” \(member [\w-]{43}\)/)
      // the owner's agent was there: it took the admit, and the command says so
      expect(invited.stderr()).toContain('agent: a peer of the room took it: the room has it now')
      // its stdout is the link alone (for `$(…)`)
      const bobLink = invited.stdout().trim()
      expect(bobLink).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/\?role=executor#room=members-cli&[^\s]+$/,
      )
      const bob = parseMemberInvite(bobLink)
      expect(bob.owner).toBe(owner.owner)
      expect(bob.room.id).toBe(owner.room.id)
      expect(deriveMemberKey(bob.me).id).not.toBe(owner.owner)

      const bobAgent = peer('bob', bobLink)
      all.push(bobAgent)
      await until(() => /Murmuration observer/.test(bobAgent.stdout()), said, STEP_MS)

      const removed = peer('owner-remove', ownerLink, '--remove-member', 'Bob')
      all.push(removed)
      expect(await removed.exit).toBe(0)
      expect(removed.stdout()).toMatch(
        /removed “Bob” \(member [\w-]{43}\): the room moved to epoch 1/,
      )

      expect(await bobAgent.exit).toBe(EXIT_REMOVED)
      expect(bobAgent.stderr()).toMatch(
        /agent: You were removed from “members-cli” by Ada at \d\d:\d\d:\d\d\. Nothing new reaches this tab\./,
      )
      // the owner's agent goes on
      expect(ownerAgent.child.exitCode).toBeNull()
    },
    4 * STEP_MS,
  )

  it(
    '--invite-person with no peer online: says the admit stays in its --data; an agent run with that --data later gives it to the room',
    async () => {
      const { agent } = runner
      const made = agent(['--new-room', 'members-alone', '--app', world.origin])
      expect(await made.exit).toBe(0)
      const ownerLink = made.stdout().trim()
      const dir = join(world.dir, 'alone-owner')
      const run = (link: string, ...more: string[]) =>
        agent([...['--invite', link, '--rtc-bind', '127.0.0.1', '--role', 'observer'], ...more])
      const invited = run(
        ownerLink,
        '--data',
        dir,
        '--invite-person',
        'Carol',
        '--wait-for-peer',
        '0',
      )
      expect(await invited.exit).toBe(0)
      expect(invited.stderr()).toContain(
        `agent: no peer of the room took it: it is kept in ${dir} and goes out the next time an agent runs with --data ${dir} and meets a peer of the room`,
      )
      const carolLink = invited.stdout().trim()
      // Carol's agent writes a goal: it counts (her tree shows it) only once her admit reaches
      // her, from the owner's agent run later with the invite's --data
      const carol = run(
        carolLink,
        '--data',
        join(world.dir, 'alone-carol'),
        '--goal',
        'Plan a tea party',
      )
      const shown = () => /\] Plan a tea party \(by /.test(carol.stdout())
      await until(
        () => /submitted goal/.test(carol.stdout()),
        () => carol.stderr(),
        STEP_MS,
      )
      await new Promise((r) => setTimeout(r, 3_000))
      expect(shown()).toBe(false)
      const owner = run(ownerLink, '--data', dir)
      const said = () =>
        [carol, owner].map((r) => `--- stdout\n${r.stdout()}\n--- stderr\n${r.stderr()}`).join('\n')
      await until(shown, said, 2 * STEP_MS)
      expect(owner.child.exitCode).toBeNull()
    },
    4 * STEP_MS,
  )
})
