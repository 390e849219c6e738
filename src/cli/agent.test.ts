/**
 * The headless agent as a person runs it: real child processes (the built
 * agent, as `npm run agent` runs it), a real relay, real signals.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { silentLogger } from '../net/log'
import { LOCK_FILE } from './data-dir-lock'
import { agentRunner, type AgentRun } from './agent-process.test-support'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'

/** every agent joins a room by its invite link */
const SEED = newMemberSeed()
const INVITE = memberInviteLink('http://127.0.0.1:8080', {
  room: deriveRoomKey('agents', newRoomSecret()),
  owner: deriveMemberKey(SEED).id,
  me: SEED,
})

// the CLI is built once before the test files run (test/global-setup.ts): the launcher would build it too, but not from several files at once
const runner = agentRunner()
function agent(args: string[], env: Record<string, string> = {}): AgentRun {
  const invite = args.includes('--new-room') ? [] : ['--invite', INVITE]
  return runner.agent([...invite, ...args], env)
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-agent-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})
afterEach(() => runner.kill())

describe('agent command line', () => {
  it('prints usage for --help and the version for --version, exit 0', async () => {
    const [help, version] = [agent(['--help']), agent(['-v'])]
    expect(await help.exit).toBe(0)
    expect(help.stdout()).toMatch(/^Usage: murmuration-agent/)
    expect(help.stdout()).toContain('--capacity')
    expect(await version.exit).toBe(0)
    expect(version.stdout().trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })

  // every other option mistake is covered in process by agent-options.test.ts
  it('a bad option or value is one line on stderr and exit 2, no stack trace', async () => {
    const runs = [agent(['--bogus']), agent(['--capacity', 'lots'])]
    const messages = [/Unknown option '--bogus'/, /--capacity must be a whole number/]
    for (const [i, run] of runs.entries()) {
      expect(await run.exit).toBe(2)
      expect(run.stdout()).toBe('')
      const lines = run.stderr().trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^agent: /)
      expect(lines[0]).toMatch(messages[i]!)
    }
  })

  it("--new-room prints the owner's invite link of a new room on the app, and how to use it", async () => {
    const run = agent(['--new-room', 'picnic', '--app', 'http://127.0.0.1:18280'])
    expect(await run.exit).toBe(0)
    const link = run.stdout().trim()
    expect(link).toMatch(
      /^http:\/\/127\.0\.0\.1:18280\/#room=picnic&key=[\w-]{22}&owner=[\w-]{43}&me=[\w-]{22}$/,
    )
    expect(run.stderr()).toContain('--invite-person NAME')
    expect(run.stderr()).toContain(`--invite '${link}'`)
    // a fresh secret each time: two rooms of one name are two rooms
    const again = agent(['--new-room', 'picnic'])
    expect(await again.exit).toBe(0)
    expect(again.stdout().trim()).toMatch(/^http:\/\/127\.0\.0\.1:8080\/#room=picnic&key=/)
    expect(again.stdout().trim().split('key=')[1]).not.toBe(link.split('key=')[1])
  })

  it('says why and exits 1 when the model server is unreachable', async () => {
    const run = agent(['--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:9/v1'])
    expect(await run.exit).toBe(1)
    expect(run.stderr()).toMatch(/^agent: the model check failed: .*--skip-check/)
    expect(run.stderr()).not.toMatch(/\n\s+at /) // no stack trace
  })
})

describe('agent peers', () => {
  let relay: Relay
  beforeAll(async () => {
    relay = await createRelay({ port: 0, keyFile: join(dir, 'relay.key'), logger: silentLogger })
  })
  afterAll(async () => {
    await relay.stop()
  })

  const peerIdIn = (text: string) => /Murmuration observer (12D3KooW\w+)/.exec(text)?.[1]

  it('never shares a data dir: a second agent gets its own identity; a clean stop frees it', async () => {
    const data = join(dir, 'obs')
    const args = ['--role', 'observer', '--relay', relay.multiaddrs[0]!, '--data', data]
    const first = agent(args)
    await until(() => peerIdIn(first.stdout()) !== undefined, 'the first agent')
    const second = agent(args)
    await until(() => peerIdIn(second.stdout()) !== undefined, 'the second agent')
    expect(second.stdout()).toContain(`uses ${data}.2`)
    expect(peerIdIn(second.stdout())).not.toBe(peerIdIn(first.stdout()))

    first.child.kill('SIGTERM')
    expect(await first.exit).toBe(0)
    expect(existsSync(join(data, LOCK_FILE))).toBe(false)
    // the first slot is free again: a restart takes it back, with the same PeerId
    const again = agent(args)
    await until(() => peerIdIn(again.stdout()) !== undefined, 'the restarted agent')
    expect(peerIdIn(again.stdout())).toBe(peerIdIn(first.stdout()))
  }, 60_000)

  it('stops on Ctrl-C, and a second Ctrl-C forces the exit', async () => {
    const run = agent([
      '--role',
      'observer',
      '--relay',
      relay.multiaddrs[0]!,
      '--data',
      join(dir, 'sig'),
    ])
    await until(() => peerIdIn(run.stdout()) !== undefined, 'the agent')
    run.child.kill('SIGINT')
    await until(() => run.stderr().includes('Ctrl-C again'), 'the stopping notice')
    run.child.kill('SIGINT')
    const code = await run.exit
    // either the clean stop won the race (0) or the second signal forced it (130)
    expect([0, 130]).toContain(code)
  }, 60_000)

  it('appends every LLM call it makes to the --log-calls file, one JSON object a line', async () => {
    const file = join(dir, 'calls', 'decomposer.jsonl')
    const lines = async () => (await readFile(file, 'utf8').catch(() => '')).trim().split('\n')
    const goal = 'Plan a reading week'
    const run = agent([
      ...['--role', 'decomposer', '--relay', relay.multiaddrs[0]!, '--data', join(dir, 'dec')],
      ...['--goal', goal, '--log-calls', file, '--quiet'],
    ])
    const deadline = Date.now() + 40_000
    while (!(await lines())[0]) {
      if (Date.now() > deadline) throw new Error(`no call logged: ${run.stderr()}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    const call = JSON.parse((await lines())[0]!) as Record<string, unknown>
    expect(call).toMatchObject({ kind: 'decompose', ok: true, provider: 'offline' })
    expect(JSON.stringify(call.attempts)).toContain(goal)
    expect(call.goal).toBe(call.node)
  }, 60_000)
})
