/**
 * A headless agent that acts (issue 24), as a person runs it: a real agent
 * process with --run-code and --web-search, on Anthropic's wire (the mock
 * LLM), in a room with in-process peers over a real relay. It executes a
 * code leaf in its sandbox and a search leaf with the provider's search, and
 * the result records another peer holds carry the program's real output and
 * the sources.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { CLI_ENTRY } from '../../scripts/build-cli.mjs'
import { silentLogger } from '../net/log'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import type { ResultRecord } from '../protocol/records'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'
import { createNodeRuntime } from '../runtime/node'
import type { PeerRuntime, Role } from '../runtime/types'

/** the built agent, as `npm run agent` runs it (it imports the Node 20 preload itself) */
const AGENT = [CLI_ENTRY]
const ROOM = deriveRoomKey('agent-tools', newRoomSecret())
/** the room's owner: the agent and the in-process peers are this one member (version 7) */
const SEED = newMemberSeed()
const MEMBER = { owner: deriveMemberKey(SEED).id, seed: SEED }
/** A program whose output no model could guess without running it. */
const PROGRAM = 'let n = 0\nfor (let i = 1; i <= 2000; i++) n += i % 7\nconsole.log("checksum", n)'
const PRINTED = 'checksum 6000'

let relay: Relay
let mock: MockLlmServer
let dir: string
let agent: ChildProcess | null = null
const peers: PeerRuntime[] = []

async function until(check: () => boolean, what: string, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-agent-tools-'))
  relay = await createRelay({ port: 0, keyFile: join(dir, 'relay.key'), logger: silentLogger })
  // shape mode: every goal splits in two leaves that need the capability the test sets
  mock = await createMockLlmServer({ mode: 'shape', branching: 2, toolCode: PROGRAM })
})
afterAll(async () => {
  if (agent?.exitCode === null) agent.kill('SIGKILL')
  await Promise.all(peers.map((p) => p.stop()))
  await mock.close()
  await relay.stop()
  await rm(dir, { recursive: true, force: true })
})

async function peer(role: Role): Promise<PeerRuntime> {
  const runtime = await createNodeRuntime({
    room: ROOM,
    member: MEMBER,
    role,
    relays: relay.multiaddrs,
    rtcBindAddress: '127.0.0.1',
    model: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      baseUrl: `${mock.url}/v1`,
    },
    log: () => {},
  })
  peers.push(runtime)
  return runtime
}

describe('an agent with --run-code and --web-search', () => {
  it('runs a code leaf and a search leaf; the records other peers hold carry the real output and the sources', async () => {
    let out = ''
    agent = spawn(
      process.execPath,
      [
        ...AGENT,
        '--invite',
        memberInviteLink('http://127.0.0.1:8080', { room: ROOM, owner: MEMBER.owner, me: SEED }),
        '--relay',
        relay.multiaddrs[0]!,
        '--rtc-bind',
        '127.0.0.1',
        '--data',
        join(dir, 'executor'),
        '--provider',
        'anthropic',
        '--base-url',
        `${mock.url}/v1`,
        '--run-code',
        '--web-search',
        '--skip-check',
      ],
      {
        env: { ...process.env, MURMURATION_API_KEY: 'k', DEBUG: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    agent.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await until(() => /Murmuration executor/.test(out), 'the agent to start')
    expect(out).toMatch(/Murmuration executor 12D3KooW\w+ .*; tools: run code, web search/)

    const [author, , , observer] = await Promise.all([
      peer('decomposer'),
      peer('scorer'),
      peer('scorer'),
      peer('observer'),
    ])
    const results = () =>
      observer!
        .records()
        .filter((r): r is ResultRecord => r.kind === 'result' && r.steps !== undefined)

    mock.setBehaviour({ capability: 'can_run_code' })
    const code = await author!.submitGoal('Work out a checksum for the garden plan', 1)
    await until(
      () => observer!.tree().goals.find((g) => g.id === code)?.status === 'done',
      'the code goal',
    )
    mock.setBehaviour({ capability: 'can_query_api' })
    const live = await author!.submitGoal('Find current ferry times to the island', 1)
    await until(
      () => observer!.tree().goals.find((g) => g.id === live)?.status === 'done',
      'the search goal',
    )

    const steps = results().flatMap((r) => r.steps!)
    const runs = steps.filter((s) => s.type === 'code')
    const searches = steps.filter((s) => s.type === 'search')
    // both code leaves ran the program in the agent's sandbox: its real output, in every record
    expect(runs).toHaveLength(2)
    for (const run of runs)
      expect(run).toMatchObject({ code: PROGRAM, exit: 0, stdout: `${PRINTED}\n` })
    expect(searches).toHaveLength(2)
    for (const search of searches)
      expect(search.sources).toEqual([
        { title: 'Mock result one', url: 'https://example.org/one' },
        { title: 'Mock result two', url: 'https://example.org/two' },
      ])
    // the deliverables quote what the program printed, as the tool result carried it back
    const codeOutputs = results().filter((r) => r.steps!.some((s) => s.type === 'code'))
    for (const result of codeOutputs) expect(result.output).toContain(PRINTED)
    // what reached the observer is signed by the agent, the only peer that ran anything
    expect(new Set(results().map((r) => r.from)).size).toBe(1)
  }, 120_000)
})
