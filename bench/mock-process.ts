/**
 * The mock LLM in a process of its own. A real LLM is on another machine:
 * its latency does not grow when the swarm's peers keep this machine's CPU
 * busy. In the peers' process, the mock's 1 s sleep would fire late whenever
 * the event loop is busy, and that lag would be billed to the LLM. Here it
 * has an event loop of its own, and runs ahead of the peers (MOCK_PRIORITY).
 *
 * As a child (`forkMockLlm`): starts the server, sends its URL, and closes
 * when the parent disconnects or sends 'close'.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setPriority } from 'node:os'
import { createMockLlmServer, type MockLlmServerInit } from '../test/mock-llm/server'

export interface MockProcess {
  /** http://127.0.0.1:port (no /v1) */
  url: string
  /** the server's resetSeeds(): the next side of the bench gets the same answers */
  resetSeeds(): Promise<void>
  close(): Promise<void>
}

/**
 * The mock's scheduling priority (nice value; lower runs first). At 32
 * peers, with the mock on equal terms with the peers, the swarm's 1 s calls
 * took 1.05 to 1.31 s at the median (by kind, two runs); with the mock
 * ahead, 1.01 to 1.20 s. The rest is the peers' own event loops. The
 * orchestrator runs alone: 1.00 to 1.02 s either way.
 */
const MOCK_PRIORITY = -10

const SELF = fileURLToPath(import.meta.url)
const PRELOAD = fileURLToPath(new URL('../scripts/node-preload.mjs', import.meta.url))

export async function forkMockLlm(init: MockLlmServerInit): Promise<MockProcess> {
  const child: ChildProcess = fork(SELF, [JSON.stringify(init)], {
    execArgv: ['--import', PRELOAD, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  try {
    setPriority(child.pid!, MOCK_PRIORITY)
  } catch {
    // needs root or CAP_SYS_NICE: without, the mock's own lag is in the figures
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url?: string; error?: string }) =>
      message.url
        ? resolve(message.url)
        : reject(new Error(message.error ?? 'mock LLM did not start')),
    )
    child.once('exit', (code) => reject(new Error(`mock LLM process exited (${code})`)))
  })
  return {
    url,
    resetSeeds: () =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve())
        child.send('reset')
      }),
    async close() {
      if (child.connected) child.send('close')
      const timer = setTimeout(() => child.kill('SIGTERM'), 5_000)
      await exited
      clearTimeout(timer)
    },
  }
}

// run as the child
if (process.argv[1] === SELF && process.send) {
  const init = JSON.parse(process.argv[2] ?? '{}') as MockLlmServerInit
  createMockLlmServer(init).then(
    (server) => {
      const close = () => void server.close().finally(() => process.exit(0))
      process.on('message', (message) => {
        if (message === 'close') close()
        if (message === 'reset') {
          server.resetSeeds()
          process.send!('reset')
        }
      })
      process.on('disconnect', close)
      process.send!({ url: server.url })
    },
    (error: Error) => {
      process.send!({ error: error.message })
      process.exit(1)
    },
  )
}
