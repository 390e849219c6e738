/**
 * A real MCP server over Streamable HTTP on 127.0.0.1, for tests (issue 57):
 * a reference server from npm (server-memory, server-filesystem: stdio
 * only) runs as a child process, and the official SDK's Streamable HTTP
 * server transport fronts it, one child per session, messages passed through
 * unchanged. `cors` decides whether it sends the headers a page on another
 * origin needs (the tab's "CORS missing" case is a real refusal by Chromium).
 *
 * Nothing listens beyond loopback.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

const require = createRequire(import.meta.url)

/** The entry of a reference server package, to run with `node`. */
export function serverEntry(pkg: 'server-memory' | 'server-filesystem'): string {
  return require.resolve(`@modelcontextprotocol/${pkg}/dist/index.js`)
}

export interface McpHttpBridgeInit {
  command: string
  args: string[]
  /** the child's environment, on top of PATH and HOME */
  env?: Record<string, string>
  /** send CORS headers for any origin (default true) */
  cors?: boolean
}

export interface McpHttpBridge {
  /** the Streamable HTTP endpoint: http://127.0.0.1:PORT/mcp */
  url: string
  /** tools/call requests seen, by tool name, in order */
  calls: string[]
  close(): Promise<void>
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers':
    'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  'access-control-expose-headers': 'mcp-session-id',
}

interface Session {
  http: StreamableHTTPServerTransport
  child: StdioClientTransport
}

export async function startMcpHttpBridge(init: McpHttpBridgeInit): Promise<McpHttpBridge> {
  const sessions = new Map<string, Session>()
  const calls: string[] = []
  const cors = init.cors ?? true

  async function open(): Promise<Session> {
    const child = new StdioClientTransport({
      command: init.command,
      args: init.args,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...init.env },
      stderr: 'ignore',
    })
    const http = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session)
      },
    })
    const session = { http, child }
    http.onmessage = (message) => {
      if ('method' in message && message.method === 'tools/call') {
        const params = (message as { params?: { name?: unknown } }).params
        calls.push(String(params?.name))
      }
      void child.send(message)
    }
    // responses find their request's stream by id; anything else goes to the session's own stream
    child.onmessage = (message) => void http.send(message)
    http.onclose = () => void child.close()
    await child.start()
    return session
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (cors) for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v)
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end()
      return
    }
    if (!(req.url ?? '').startsWith('/mcp')) {
      res.writeHead(404).end()
      return
    }
    const id = req.headers['mcp-session-id']
    const known = typeof id === 'string' ? sessions.get(id) : undefined
    if (known) return known.http.handleRequest(req, res)
    if (id !== undefined || req.method !== 'POST') {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'No valid session ID' },
          id: null,
        }),
      )
      return
    }
    const session = await open()
    await session.http.handleRequest(req, res)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await Promise.all(
        [...sessions.values()].map((s) => Promise.all([s.http.close(), s.child.close()])),
      )
      sessions.clear()
    },
  }
}
