/**
 * The built agent as a child process, as `npm run agent` runs it, beside a
 * real relay and app server (what the agent finds through the link's
 * address): for node tests of the command line end to end.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveApp, type AppServer } from '../../relay/app-server'
import { createRelay, type Relay } from '../../relay/relay'
import { silentLogger } from '../net/log'

export interface AgentRun {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exit: Promise<number | null>
}

/**
 * Runs `scripts/agent.mjs args…` with no API key and no debug output (and
 * `env` on top); `kill()` ends every one still running.
 */
export function agentRunner(): {
  agent(args: string[], env?: Record<string, string>): AgentRun
  kill(): void
} {
  const children: ChildProcess[] = []
  return {
    agent(args, env = {}) {
      const child = spawn(process.execPath, ['scripts/agent.mjs', ...args], {
        env: { ...process.env, MURMURATION_API_KEY: '', DEBUG: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      let out = ''
      let err = ''
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
      const exit = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)))
      return { child, stdout: () => out, stderr: () => err, exit }
    },
    kill() {
      for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}

export async function until(check: () => boolean, what: () => string, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export interface AgentWorld {
  dir: string
  relay: Relay
  app: AppServer
  origin: string
  close(): Promise<void>
}

/** A temporary directory, a relay and an app server naming it. */
export async function agentWorld(prefix: string): Promise<AgentWorld> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>app</title>')
  const relay = await createRelay({
    port: 0,
    keyFile: join(dir, 'relay.key'),
    logger: silentLogger,
  })
  const app = await serveApp({
    dir,
    host: '127.0.0.1',
    port: 0,
    relay: { peerId: relay.peerId, multiaddrs: relay.multiaddrs },
    lanOrigins: () => [],
  })
  return {
    dir,
    relay,
    app,
    origin: `http://127.0.0.1:${app.port}`,
    async close() {
      await app.close()
      await relay.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
