/**
 * An executor's MCP servers for real (issue 57): the reference servers from
 * npm, server-filesystem as a stdio child and server-memory over Streamable
 * HTTP on 127.0.0.1. Their tools arrive with their annotations; nothing is
 * announced until its person turns it on; a call runs only when consent
 * allows it, checked at the call (another member's goal is refused by an
 * agent and waits for an approval in a tab); and closing the hub ends the
 * stdio child.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serverEntry, startMcpHttpBridge, type McpHttpBridge } from '../../../test/mcp/http-bridge'
import { explainConnectError } from './cors'
import { McpHub, type GoalContext } from './hub'
import { nodeStdio } from './stdio.node'

const theirs: GoalContext = { goal: 'g1', goalText: 'Bob’s goal', ownGoal: false }
const mine: GoalContext = { goal: 'g2', goalText: 'my goal', ownGoal: true }

let dir: string
let secret: string
let bridge: McpHttpBridge
let memoryFile: string

/** The pids of this process's children (Linux): a stdio server is one while it runs. */
function childPids(): Set<number> {
  const pids = new Set<number>()
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8')
    for (const pid of text.split(/\s+/).filter(Boolean)) pids.add(Number(pid))
  }
  return pids
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-mcp-'))
  secret = `fern-${randomBytes(12).toString('hex')}`
  await writeFile(join(dir, 'secret.txt'), `The code word is ${secret}.\n`)
  memoryFile = join(dir, 'memory.jsonl')
  await writeFile(
    memoryFile,
    `${JSON.stringify({ type: 'entity', name: 'Garden', entityType: 'place', observations: [`gate code ${secret}`] })}\n`,
  )
  bridge = await startMcpHttpBridge({
    command: process.execPath,
    args: [serverEntry('server-memory')],
    env: { MEMORY_FILE_PATH: memoryFile },
  })
})
afterAll(async () => {
  await bridge?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('an agent’s stdio server (server-filesystem)', () => {
  it('lists its tools, offers only what is on, calls by consent, and ends its child on close', async () => {
    const lines: string[] = []
    const before = childPids()
    const hub = new McpHub({ stdio: nodeStdio, canAsk: false, log: (l) => lines.push(l) })
    await hub.setServers([
      {
        kind: 'stdio',
        name: 'files',
        command: process.execPath,
        args: [serverEntry('server-filesystem'), dir],
      },
    ])
    const [server] = hub.status().servers
    expect(server).toMatchObject({ group: 'files', state: 'ready' })
    const tool = (name: string) => server!.tools.find((t) => t.name === name)
    expect(tool('read_text_file')).toMatchObject({ readOnly: true, access: 'off' })
    expect(tool('write_file')).toMatchObject({ readOnly: false, destructive: true, access: 'off' })
    // a child process of ours while it runs
    const started = [...childPids()].filter((pid) => !before.has(pid))
    expect(started.length).toBeGreaterThan(0)

    // nothing is offered, and nothing can be called, until its person turns it on
    expect(hub.offered()).toEqual([])
    expect(hub.toolbox('files', mine)).toBeUndefined()
    hub.setConsent({ files: { read_text_file: 'anyone', write_file: 'own' } })
    const offered = hub.offered()
    expect(offered.map((g) => g.name)).toEqual(['files'])
    expect([...offered[0]!.tools].sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
      {
        name: 'read_text_file',
        readOnly: true,
        destructive: false,
        openWorld: false,
        anyone: true,
      },
      { name: 'write_file', readOnly: false, destructive: true, openWorld: false, anyone: false },
    ])

    // another member's goal reads (open to anyone) but cannot write: refused, nothing on disk
    const box = hub.toolbox('files', theirs)!
    expect(box.tools.map((t) => t.name).sort()).toEqual(['read_text_file', 'write_file'])
    const read = await box.call('read_text_file', { path: join(dir, 'secret.txt') })
    expect(read).toEqual({ status: 'ok', text: `The code word is ${secret}.\n` })
    const written = join(dir, 'theirs.txt')
    const refused = await box.call('write_file', { path: written, content: 'x' })
    expect(refused.status).toBe('refused')
    expect(refused.text).toMatch(/files\/write_file is kept for its person's own goals/)
    expect(existsSync(written)).toBe(false)
    expect(lines.join('\n')).toMatch(/refused a tool call for “Bob’s goal”/)

    // their own goal may write
    const own = join(dir, 'mine.txt')
    expect(
      (await hub.toolbox('files', mine)!.call('write_file', { path: own, content: 'ok' })).status,
    ).toBe('ok')
    expect(await readFile(own, 'utf8')).toBe('ok')

    // turned off mid-task: the box already lent refuses at the next call
    hub.setConsent({ files: { write_file: 'own' } })
    expect((await box.call('read_text_file', { path: join(dir, 'secret.txt') })).status).toBe(
      'refused',
    )

    await hub.close()
    await expect.poll(() => started.filter((pid) => childPids().has(pid))).toEqual([])
  }, 60_000)

  it('says what went wrong when the command does not exist', async () => {
    const hub = new McpHub({ stdio: nodeStdio, canAsk: false })
    await hub.setServers([{ kind: 'stdio', command: 'no-such-mcp-server-here', args: [] }])
    expect(hub.status().servers[0]).toMatchObject({ state: 'failed' })
    expect(hub.status().servers[0]!.error).toMatch(/not found|ENOENT/)
    await hub.close()
  })
})

describe('a Streamable HTTP server (server-memory on 127.0.0.1)', () => {
  it('names its group from the server, reads for anyone, and asks before another member’s write', async () => {
    let changes = 0
    const hub = new McpHub({ canAsk: true })
    hub.listen(() => changes++)
    await hub.setServers([{ kind: 'http', url: bridge.url }])
    const [server] = hub.status().servers
    expect(server).toMatchObject({ group: 'memory-server', state: 'ready', kind: 'http' })
    hub.setConsent({ 'memory-server': { search_nodes: 'anyone', create_entities: 'own' } })

    const box = hub.toolbox('memory-server', theirs)!
    const found = await box.call('search_nodes', { query: 'Garden' })
    expect(found.status).toBe('ok')
    expect(found.text).toContain(`gate code ${secret}`)

    const before = await readFile(memoryFile, 'utf8')
    const entity = { entities: [{ name: 'Shed', entityType: 'place', observations: ['new'] }] }
    // another member's goal: it waits for its person, who refuses
    const refusedCall = box.call('create_entities', entity)
    await expect.poll(() => hub.status().approvals.length).toBe(1)
    const [waiting] = hub.status().approvals
    expect(waiting).toMatchObject({
      group: 'memory-server',
      tool: 'create_entities',
      goal: 'g1',
      goalText: 'Bob’s goal',
    })
    expect(JSON.parse(waiting!.input)).toEqual(entity)
    hub.answer(waiting!.id, false)
    expect((await refusedCall).status).toBe('refused')
    expect(hub.status().approvals).toEqual([])
    expect(await readFile(memoryFile, 'utf8')).toBe(before)
    expect(bridge.calls).not.toContain('create_entities')

    // asked again and allowed: it runs
    const allowedCall = box.call('create_entities', entity)
    await expect.poll(() => hub.status().approvals.length).toBe(1)
    hub.answer(hub.status().approvals[0]!.id, true)
    expect((await allowedCall).status).toBe('ok')
    expect(await readFile(memoryFile, 'utf8')).toContain('Shed')
    expect(changes).toBeGreaterThan(3)

    // the task ended while waiting: refused, and the approval is gone
    const aborter = new AbortController()
    const abandoned = box.call('create_entities', entity, aborter.signal)
    await expect.poll(() => hub.status().approvals.length).toBe(1)
    aborter.abort()
    expect((await abandoned).status).toBe('refused')
    expect(hub.status().approvals).toEqual([])
    await hub.close()
  }, 60_000)

  it('a server that stops answering is not connected any more, and its tools are not offered', async () => {
    const own = await startMcpHttpBridge({
      command: process.execPath,
      args: [serverEntry('server-memory')],
      env: { MEMORY_FILE_PATH: memoryFile },
    })
    const hub = new McpHub({ canAsk: false })
    try {
      await hub.setServers([{ kind: 'http', url: own.url, name: 'notes' }])
      hub.setConsent({ notes: { search_nodes: 'anyone' } })
      expect(hub.status().servers[0]).toMatchObject({ state: 'ready' })
      expect(hub.offered().map((g) => g.name)).toEqual(['notes'])
      const box = hub.toolbox('notes', theirs)!
      expect((await box.call('search_nodes', { query: 'Garden' })).status).toBe('ok')

      await own.close()
      expect((await box.call('search_nodes', { query: 'Garden' })).status).toBe('error')
      expect(hub.status().servers[0]).toMatchObject({ state: 'failed' })
      expect(hub.status().servers[0]!.error).toMatch(/^it stopped answering/)
      expect(hub.offered()).toEqual([])
      expect(hub.toolbox('notes', theirs)).toBeUndefined()
    } finally {
      await hub.close()
      await own.close()
    }
  }, 60_000)

  it('tells a dead address from a page’s CORS refusal', async () => {
    const spec = { kind: 'http' as const, url: 'http://127.0.0.1:9/mcp' }
    const failed = new TypeError('Failed to fetch')
    expect(await explainConnectError(spec, failed, async () => false)).toMatch(
      /^nothing answers at/,
    )
    const cors = await explainConnectError(spec, failed, async () => true)
    expect(cors).toMatch(/answers, but does not let this page .* use it/)
    expect(cors).toContain('Access-Control-Expose-Headers: mcp-session-id')
    // an agent has no probe: a refused connection is nothing answering
    const hub = new McpHub({ canAsk: false })
    await hub.setServers([spec])
    expect(hub.status().servers[0]!.error).toMatch(
      /^nothing answers at http:\/\/127\.0\.0\.1:9\/mcp/,
    )
    await hub.close()
  })
})
