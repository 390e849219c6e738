import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { portInUse } from './port-in-use'
import { START_ENTRY } from '../scripts/build-cli.mjs'

describe('portInUse', () => {
  it('finds the address of EADDRINUSE as node:net throws it, in a cause, in an AggregateError or a message', () => {
    const net = Object.assign(
      new Error('listen EADDRINUSE: address already in use 127.0.0.1:9091'),
      {
        code: 'EADDRINUSE',
        address: '127.0.0.1',
        port: 9091,
      },
    )
    expect(portInUse(net)).toBe('127.0.0.1:9091')
    expect(portInUse(new Error('could not listen', { cause: net }))).toBe('127.0.0.1:9091')
    expect(portInUse(new AggregateError([new Error('x'), net]))).toBe('127.0.0.1:9091')
    expect(portInUse(new Error('listen EADDRINUSE: address already in use 0.0.0.0:9090'))).toBe(
      '0.0.0.0:9090',
    )
    expect(portInUse(new Error('ECONNREFUSED'))).toBeNull()
    expect(portInUse('EADDRINUSE')).toBeNull()
  })
})

describe('npm start with a port in use', () => {
  let taken: Server
  let port: number
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'murmuration-port-'))
    taken = createServer()
    await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok))
    port = (taken.address() as { port: number }).port
  })
  afterAll(async () => {
    await new Promise((ok) => taken.close(ok))
    await rm(dir, { recursive: true, force: true })
  })

  const start = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) => {
      const child = spawn(
        process.execPath,
        ['--import', './scripts/node-preload.mjs', START_ENTRY, ...args],
        { env: { ...process.env, DEBUG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
      child.on('exit', (code) => ok({ code, stdout, stderr }))
    })

  // the app's port, the relay's WebSocket port, and the relay's /relay.json port (relay port + 1)
  it.each([
    ['the app port', (p: number) => ['--port', String(p), '--relay-port', '0']],
    ['the relay port', (p: number) => ['--port', '0', '--relay-port', String(p)]],
    ['the relay port + 1', (p: number) => ['--port', '0', '--relay-port', String(p - 1)]],
  ])(
    '%s taken: one line naming it, exit 2',
    async (_what, args) => {
      const run = await start([...args(port), '--data', dir])
      expect(run.code).toBe(2)
      const lines = run.stderr.trim().split('\n')
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(`^murmuration: 127\\.0\\.0\\.1:${port} is already in use`),
        ),
      ])
    },
    30_000,
  )
})
