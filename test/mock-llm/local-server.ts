/**
 * A fake local LLM server (Ollama, LM Studio or llama.cpp) in front of the
 * mock LLM: it answers the model lists the way each server does (Ollama's
 * own GET /api/tags, OpenAI's GET /v1/models), refuses a model it does not
 * have with Ollama's 404, holds the first call of each model while it
 * "loads" it, and hands every other request to the mock server, which
 * speaks the real wire format. For tests of the tab's model check and of
 * local server discovery.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMockLlmServer, type MockLlmServer } from './server'
import { readBody, send } from './http'

export type FakeLocalKind = 'ollama' | 'lmstudio' | 'llamacpp'

export interface FakeLocalOptions {
  kind: FakeLocalKind
  /** 0 picks a free one */
  port?: number
  models: string[]
  /** the first chat call of each model waits this long, as a server loading it from disk */
  loadMs?: number
  /** answer with CORS headers (LM Studio sends none until "Enable CORS" is on) */
  cors?: boolean
}

export interface FakeLocalServer {
  url: string
  port: number
  /** method and path of every request, preflights included */
  requests: string[]
  mock: MockLlmServer
  close(): Promise<void>
}

function allowCors(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*')
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS')
  res.setHeader(
    'access-control-allow-headers',
    req.headers['access-control-request-headers'] ?? '*',
  )
}

export async function startFakeLocalServer(options: FakeLocalOptions): Promise<FakeLocalServer> {
  const mock = await createMockLlmServer({ latencyMs: 0 })
  const requests: string[] = []
  const loaded = new Set<string>()
  const cors = options.cors ?? true

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    requests.push(`${req.method} ${path}`)
    if (cors) allowCors(req, res)
    if (req.method === 'OPTIONS') {
      res.writeHead(204)
      return void res.end()
    }
    if (req.method === 'GET' && path === '/api/tags' && options.kind === 'ollama') {
      return send(res, 200, {
        models: options.models.map((name) => ({ name, model: name, size: 2_000_000_000 })),
      })
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, {
        object: 'list',
        data: options.models.map((id) => ({ id, object: 'model', owned_by: options.kind })),
      })
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      return void readBody(req).then(async (raw) => {
        let model = ''
        try {
          model = String((JSON.parse(raw) as { model?: unknown }).model ?? '')
        } catch {
          // the mock answers a bad body itself
        }
        // llama.cpp serves its one model whatever the name; the others know theirs
        if (options.kind !== 'llamacpp' && !options.models.includes(model)) {
          return send(res, 404, {
            error: {
              message: `model "${model}" not found, try pulling it first`,
              type: 'api_error',
            },
          })
        }
        if (!loaded.has(model) && options.loadMs) {
          await new Promise((resolve) => setTimeout(resolve, options.loadMs))
        }
        loaded.add(model)
        forward(req, raw, res)
      })
    }
    send(res, 404, { error: `${req.method} ${path} not found` })
  })

  function forward(req: IncomingMessage, body: string, res: import('node:http').ServerResponse) {
    const target = new URL(req.url ?? '/', mock.url)
    const out = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        // the mock's own CORS headers stay out when this server plays one without CORS
        const headers = Object.fromEntries(
          Object.entries(answer.headers).filter(([k]) => cors || !k.startsWith('access-control-')),
        )
        res.writeHead(answer.statusCode ?? 502, headers)
        answer.pipe(res)
      },
    )
    out.on('error', () => send(res, 502, { error: 'mock LLM unreachable' }))
    out.end(body)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    mock,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await mock.close()
    },
  }
}
