/**
 * The Node 20 preload (scripts/node-preload.mjs): a WebSocket dial that is
 * aborted while connecting, and whose connection fails afterwards, must not
 * end the process (it ended every agent whose relay dial timed out and
 * then failed).
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * A server that accepts TCP and never answers the WebSocket handshake; a dial
 * through @libp2p/websockets with a 200 ms timeout; then the server resets
 * the connection the dial left behind.
 */
const SCRIPT = `
import net from 'node:net'
import { defaultLogger } from '@libp2p/logger'
import { webSockets } from '@libp2p/websockets'
import { multiaddr } from '@multiformats/multiaddr'
const held = []
const server = net.createServer((socket) => held.push(socket))
server.listen(0, '127.0.0.1', async () => {
  const { port } = server.address()
  const transport = webSockets()({ logger: defaultLogger(), events: new EventTarget() })
  const addr = multiaddr('/ip4/127.0.0.1/tcp/' + port + '/ws')
  await transport.dial(addr, { signal: AbortSignal.timeout(200), upgrader: {} }).then(
    () => console.log('dial: connected'),
    (err) => console.log('dial: ' + err.name),
  )
  setTimeout(() => held.forEach((socket) => socket.destroy()), 100)
  setTimeout(() => { console.log('still running'); server.close() }, 600)
})
`

function runWithPreload(): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['--import', './scripts/node-preload.mjs', '--input-type=module', '-e', SCRIPT],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (b: Buffer) => (output += b.toString()))
    child.stderr.on('data', (b: Buffer) => (output += b.toString()))
    child.on('close', (code) => done({ code, output }))
  })
}

describe('node preload', () => {
  it('a WebSocket dial aborted while connecting, whose connection then fails, leaves the process running', async () => {
    const { code, output } = await runWithPreload()
    expect(output).toContain('dial: ConnectionFailedError')
    expect(output).toContain('still running')
    expect(code).toBe(0)
  })
})
