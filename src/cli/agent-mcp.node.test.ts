/**
 * Executors bring their own tools (issue 57), end to end with no key: a room
 * over a real relay where Alice's headless agent (the built CLI) runs the
 * reference filesystem MCP server over a folder holding a note whose text
 * the test makes up, and Bob's peers (two scorers, an executor without
 * tools, an observer; Alice's decomposer) run in this process, all on the
 * built-in offline model.
 *
 * Bob's goal that cues read_text_file (read-only: Alice opened it to anyone)
 * ends with a final plan holding the note's text, with the call in the
 * leaf's signed steps, and only Alice's agent ever claimed that leaf. Bob's
 * goal that cues write_file (Alice keeps it for her own goals) is refused by
 * her agent, which prints why: nothing is written. Every call is in the
 * agent's call log (tool, arguments, result, time), and the agent's server
 * process ends with it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { CLI_ENTRY } from '../../scripts/build-cli.mjs'
import { serverEntry } from '../../test/mcp/http-bridge'
import { silentLogger } from '../net/log'
import type { SlotView } from '../plan/tree'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import type { ResultRecord } from '../protocol/records'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'
import type { ToolStep } from '../protocol/steps'
import { createNodeRuntime } from '../runtime/node'
import type { CallEntry, PeerRuntime, Role } from '../runtime/types'
import { until } from './agent-process.test-support'

const ROOM = deriveRoomKey('own-tools', newRoomSecret())
const ALICE = newMemberSeed()
const OWNER = deriveMemberKey(ALICE).id
/** a plan of a few leaves, on one core's share of a loaded machine */
const GOAL_WAIT_MS = 90_000

let dir: string
let notes: string
let relay: Relay
let agent: ChildProcess | null = null
const peers: PeerRuntime[] = []

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-agent-mcp-'))
  notes = join(dir, 'notes')
  await mkdir(notes)
  relay = await createRelay({ port: 0, keyFile: join(dir, 'relay.key'), logger: silentLogger })
})
afterAll(async () => {
  if (agent?.exitCode === null) agent.kill('SIGKILL')
  await Promise.all(peers.map((p) => p.stop()))
  await relay.stop()
  await rm(dir, { recursive: true, force: true })
})

async function peer(role: Role, seed: Uint8Array): Promise<PeerRuntime> {
  const runtime = await createNodeRuntime({
    room: ROOM,
    member: { owner: OWNER, seed },
    role,
    relays: relay.multiaddrs,
    rtcBindAddress: '127.0.0.1',
    providerInit: { latencyMs: 0 },
    log: () => {},
  })
  peers.push(runtime)
  return runtime
}

/** The pids of a process's children (Linux). */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number),
  )
}

const alive = (pid: number): boolean => {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

describe('an agent that brings a filesystem MCP server', () => {
  it(
    'reads what no model could know for another member’s goal, and refuses to write for it',
    async () => {
      const secret = `The gate code is ${randomBytes(9).toString('base64url')}.`
      await writeFile(join(notes, 'secret.txt'), `${secret}\n`)
      const calls = join(dir, 'calls.jsonl')

      // Alice owns the room (her decomposer here, her agent below) and invites Bob
      const aliceDecomposer = await peer('decomposer', ALICE)
      await until(
        () => aliceDecomposer.members()?.members.some((m) => m.joined) ?? false,
        () => 'the owner to be admitted',
        20_000,
      )
      const bob = await aliceDecomposer.invitePerson('Bob')

      let out = ''
      let err = ''
      agent = spawn(
        process.execPath,
        [
          CLI_ENTRY,
          ...[
            '--invite',
            memberInviteLink('http://127.0.0.1:8080', { room: ROOM, owner: OWNER, me: ALICE }),
          ],
          ...[
            '--relay',
            relay.multiaddrs[0]!,
            '--rtc-bind',
            '127.0.0.1',
            '--data',
            join(dir, 'agent'),
          ],
          ...['--mcp', `files=${process.execPath} ${serverEntry('server-filesystem')} ${notes}`],
          ...['--allow-tool', 'files/read_text_file', '--allow-tool', 'files/write_file'],
          ...['--log-calls', calls],
        ],
        { env: { ...process.env, DEBUG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      agent.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
      agent.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
      await until(
        () => /Murmuration executor/.test(out),
        () => `the agent to start:\n${out}\n${err}`,
        30_000,
      )
      // what Alice's terminal says her server offers, and to whom
      expect(out).toMatch(/MCP files \(secure-filesystem-server [^;]*; .*\): \d+ tools/)
      expect(out).toContain("for any member's goals: read_text_file")
      expect(out).toContain("for your own goals only (others' are refused): write_file")
      const agentId = /Murmuration executor (12D3KooW\w+)/.exec(out)![1]!
      const [serverPid] = childrenOf(agent.pid!)
      expect(serverPid).toBeDefined()

      const bobs = await Promise.all([
        peer('scorer', bob.seed),
        peer('scorer', bob.seed),
        peer('executor', bob.seed),
        peer('observer', bob.seed),
      ])
      const observer = bobs[3]!
      // the room has heard what Alice's agent offers (the group, the tools, for whom): every
      // planner must have, or a subgoal that needs the group would be judged not to
      await until(
        () =>
          [aliceDecomposer, ...bobs].every((p) =>
            p
              .activity()
              .swarm.some((m) => m.peerId === agentId && m.tools?.some((g) => g.name === 'files')),
          ),
        () => 'the agent’s tool groups to reach every peer',
        30_000,
      )
      const announced = observer.activity().swarm.find((m) => m.peerId === agentId)?.tools
      expect(announced?.[0]?.tools.map((t) => [t.name, t.readOnly, t.anyone])).toEqual([
        ['read_text_file', true, true],
        ['write_file', false, false],
      ])
      // names and annotations only: never the folder or the command
      expect(JSON.stringify(announced)).not.toContain(notes)

      const read = await observer.submitGoal(
        `Quote the note read_text_file {"path": "${join(notes, 'secret.txt')}"}`,
        1,
      )
      const written = join(notes, 'from-bob.txt')
      const write = await observer.submitGoal(
        `Leave a note write_file {"path": "${written}", "content": "Bob was here"}`,
        1,
      )
      const goal = (id: string) => observer.tree().goals.find((g) => g.id === id)
      await until(
        () => goal(read)?.status === 'done' && goal(write)?.status === 'done',
        () => `both goals done: ${goal(read)?.status}, ${goal(write)?.status}\n${out}\n${err}`,
        GOAL_WAIT_MS,
      )

      const toolLeaf = (id: string): SlotView => goal(id)!.slots.find((s) => s.tool === 'files')!
      const records = observer.records()
      const resultOf = (slot: SlotView) =>
        records.find((r): r is ResultRecord => r.kind === 'result' && r.task === slot.leaf!.id)!
      const claimsOf = (slot: SlotView) =>
        records.filter((r) => r.kind === 'claim' && r.task === slot.leaf!.id).map((r) => r.from)

      // the read: its result, signed by Alice's agent, carries the call and what came back …
      const readLeaf = toolLeaf(read)
      const readResult = resultOf(readLeaf)
      expect(readResult.from).toBe(agentId)
      const step = readResult.steps?.find((s): s is ToolStep => s.type === 'tool')
      expect(step).toMatchObject({ group: 'files', name: 'read_text_file', status: 'ok' })
      expect(step!.output).toContain(secret)
      expect(JSON.parse(step!.input)).toEqual({ path: join(notes, 'secret.txt') })
      // … the final plan holds the note's text, and its export the call
      expect(goal(read)!.rollup.output).toContain(secret)
      expect(observer.exportPlan(read, 'markdown')).toContain(
        '**Called the tool read\\_text\\_file** of files',
      )
      // only the executor with the tool ever claimed it; the other one never did
      expect(new Set(claimsOf(readLeaf))).toEqual(new Set([agentId]))

      // the write, for Bob's goal: refused by consent, nothing on disk, and Alice's terminal says why
      const writeStep = resultOf(toolLeaf(write)).steps?.find(
        (s): s is ToolStep => s.type === 'tool',
      )
      expect(writeStep).toMatchObject({ name: 'write_file', status: 'refused' })
      expect(existsSync(written)).toBe(false)
      expect(err).toMatch(
        /refused a tool call for “Leave a note .*”: files\/write_file is kept for its person's own goals.*\(--allow-tool files\/write_file=anyone lets any member's goal use it\)/,
      )

      // every call is in Alice's call log: tool, arguments, result, time
      const logged = readFileSync(calls, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as CallEntry)
        .flatMap((entry) => entry.toolCalls ?? [])
      expect(logged).toContainEqual(
        expect.objectContaining({
          group: 'files',
          tool: 'read_text_file',
          input: JSON.stringify({ path: join(notes, 'secret.txt') }),
          output: `${secret}\n`,
          status: 'ok',
          startedAt: expect.any(Number),
          durationMs: expect.any(Number),
        }),
      )
      expect(logged).toContainEqual(
        expect.objectContaining({ tool: 'write_file', status: 'refused' }),
      )

      // the agent stops, and its server with it
      agent.kill('SIGINT')
      await until(
        () => agent!.exitCode !== null,
        () => 'the agent to exit',
        20_000,
      )
      await until(
        () => !alive(serverPid!),
        () => `the server ${serverPid} to end`,
        10_000,
      )
    },
    GOAL_WAIT_MS + 60_000,
  )
})
