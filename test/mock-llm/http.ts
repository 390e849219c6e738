/** HTTP plumbing for the mock LLM server: CORS, JSON replies, bounded bodies, API keys. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Api } from './wire'

/** Request bodies beyond this are refused: a roll-up prompt is well under 1 MB. */
const MAX_BODY_BYTES = 8 * 1024 * 1024
/** How long browsers may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600

export function cors(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*')
  res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS')
  // A wildcard does not cover Authorization, so echo what the browser asks for.
  res.setHeader(
    'access-control-allow-headers',
    req.headers['access-control-request-headers'] ?? '*',
  )
  res.setHeader(
    'access-control-expose-headers',
    // the back-off signals a tab's client reads (personas' rate-limited 429s carry each)
    'retry-after, retry-after-ms, x-ratelimit-reset-requests, anthropic-ratelimit-requests-reset, request-id, x-request-id',
  )
  res.setHeader('access-control-max-age', String(PREFLIGHT_MAX_AGE_S))
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': `req_mock_${Date.now()}`,
    ...headers,
  })
  res.end(text)
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'))
        req.destroy()
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export function keyOf(api: Api, headers: IncomingMessage['headers']): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]
  if (api === 'anthropic') return (headers['x-api-key'] as string | undefined) ?? bearer
  return bearer
}
