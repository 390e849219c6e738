/**
 * What the agent's terminal says while a provider makes it wait (issue 56),
 * end to end: the built agent as a child process against the mock LLM with
 * the `rate-limited` persona (3 requests per 10 s per key, the wait in its
 * 429s), beside a real relay. (The `overloaded` persona refuses a call only
 * by a seeded chance, so a single agent's one call may meet none: its
 * notices are tested over the wire in src/llm/retry-notice.test.ts.) Each wait is one line, printed when the wait
 * starts, with its real length; every line is printed once.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelay, type Relay } from '../../relay/relay'
import { createMockLlmServer, type MockLlmServer } from '../../test/mock-llm/server'
import { silentLogger } from '../net/log'
import { agentRunner, until } from './agent-process.test-support'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'

const KEY = 'sk-agent-waits-3c9e1f'
/** the persona's window: 3 requests per 10 s for the key */
const WINDOW_REQUESTS = 3
/**
 * The persona's times doubled: a 20 s window, so that the agent's call (5 to
 * 10 s after the window is spent, on a busy machine) surely meets a 429
 */
const TIME_SCALE = 2
/** Node, libp2p, the goal's 3 s delay, the waits and the reply, on a busy machine */
const RUN_TIMEOUT_MS = 90_000

const SEED = newMemberSeed()
const INVITE = memberInviteLink('http://127.0.0.1:8080', {
  room: deriveRoomKey('waits', newRoomSecret()),
  owner: deriveMemberKey(SEED).id,
  me: SEED,
})

const runner = agentRunner()
let relay: Relay
let mock: MockLlmServer
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-waits-'))
  relay = await createRelay({ port: 0, keyFile: join(dir, 'relay.key'), logger: silentLogger })
  mock = await createMockLlmServer({ persona: 'rate-limited', timeScale: TIME_SCALE })
})
afterAll(async () => {
  runner.kill()
  await mock?.close()
  await relay?.stop()
  await rm(dir, { recursive: true, force: true })
})

/** A request with the agent's key, as another program of the same person would make. */
function spend(): Promise<unknown> {
  return fetch(`${mock.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((res) => res.text())
}

/** "12:03:04 text" → seconds since midnight and the text */
function stamped(line: string): { at: number; text: string } | null {
  const m = /^(\d\d):(\d\d):(\d\d) (.*)$/.exec(line)
  return m ? { at: +m[1]! * 3600 + +m[2]! * 60 + +m[3]!, text: m[4]! } : null
}

describe('the agent while the provider makes it wait', () => {
  it(
    'prints one line per wait, when it starts, with its real length; nothing twice',
    async () => {
      const run = runner.agent(
        [
          ...[
            '--invite',
            INVITE,
            '--role',
            'decomposer',
            '--relay',
            relay.multiaddrs[0]!,
            '--data',
            join(dir, 'd'),
          ],
          ...['--goal', 'Plan a reading week', '--skip-check'],
          ...['--provider', 'openai-compatible', '--base-url', `${mock.url}/v1`],
          ...['--model', 'mock-model'],
        ],
        { MURMURATION_API_KEY: KEY },
      )
      const said = () => `--- stdout\n${run.stdout()}\n--- stderr\n${run.stderr()}`
      const printed = (pattern: RegExp) => () => {
        if (run.child.exitCode !== null) throw new Error(`the agent exited:\n${said()}`)
        return pattern.test(run.stdout())
      }
      // once it runs, and before its goal goes in (3 s later), the key's window is spent elsewhere
      await until(printed(/Murmuration decomposer/), said, RUN_TIMEOUT_MS)
      await Promise.all(Array.from({ length: WINDOW_REQUESTS }, spend))
      await until(printed(/Proposed \d+ subgoals/), said, RUN_TIMEOUT_MS)

      const lines = run.stdout().trim().split('\n')
      // every line once: nothing of the activity is printed again
      expect(
        lines.filter((line, i) => lines.indexOf(line) !== i),
        said(),
      ).toEqual([])
      const waits = lines.filter((line) => / decompose: rate limited \(429\): waiting /.test(line))
      // one line per wait: as many as the 429s the server sent the decompose call
      const refusals = mock.requests.filter((r) => r.status === 429 && r.taskKind === 'decompose')
      expect(refusals.length, said()).toBeGreaterThan(0)
      expect(waits, said()).toHaveLength(refusals.length)
      expect(run.stdout()).not.toMatch(/rate limited by the provider|waited \d/)
      // each says the wait the server asked for, and was printed when it started:
      // the next line (a wait again, or the split) comes that long after it
      const timeline = lines.map(stamped).filter((l) => l !== null)
      for (const [i, wait] of waits.entries()) {
        const seconds = Number(/waiting ([\d.]+) s/.exec(wait)![1])
        expect(seconds * 1000).toBeGreaterThanOrEqual(refusals[i]!.waitMs! - 1)
        expect(seconds * 1000).toBeLessThanOrEqual(refusals[i]!.waitMs! + 1000)
        const at = timeline.findIndex((l) => wait.endsWith(l.text))
        const next = timeline.slice(at + 1).find((l) => /rate limited|Proposed/.test(l.text))!
        // clock lines have whole seconds: allow one either way
        expect(next.at - timeline[at]!.at).toBeGreaterThanOrEqual(Math.floor(seconds) - 1)
      }
    },
    RUN_TIMEOUT_MS * 2,
  )
})
