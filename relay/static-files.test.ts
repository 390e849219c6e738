import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createStaticFiles, IMMUTABLE_CACHE, pickEncoding, REVALIDATE_CACHE } from './static-files'

let dir: string
const script = 'export const x = 1;\n'.repeat(500)
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'murmuration-static-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), `<!doctype html><title>app</title>${' '.repeat(2000)}`)
  writeFileSync(join(dir, 'assets/app-abc123.js'), script)
  writeFileSync(join(dir, 'assets/app-abc123.js.map'), '{"version":3}'.padEnd(5000))
  writeFileSync(join(dir, 'assets/pre-1.js'), script)
  writeFileSync(join(dir, 'assets/pre-1.js.br'), 'PRECOMPRESSED-BR')
  writeFileSync(join(dir, 'favicon.svg'), '<svg/>')
  writeFileSync(join(dir, 'secret.txt'), 'no')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('pickEncoding', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['*', 'br'],
    ['identity', 'identity'],
    [undefined, 'identity'],
    ['gzip;q=0,br;q=0', 'identity'],
  ])('%s → %s', (header, expected) => {
    expect(pickEncoding(header)).toBe(expected)
  })
})

describe('createStaticFiles', () => {
  const files = () => createStaticFiles({ dir })

  it('sends brotli or gzip as the browser accepts, with Vary and the right length', async () => {
    const br = (await files().get('/assets/app-abc123.js', 'gzip, br'))!
    expect(br.headers['Content-Encoding']).toBe('br')
    expect(br.headers.Vary).toBe('Accept-Encoding')
    expect(br.headers['Content-Length']).toBe(String(br.body.length))
    expect(brotliDecompressSync(br.body).toString()).toBe(script)
    expect(br.body.length).toBeLessThan(script.length / 10)

    const gz = (await files().get('/assets/app-abc123.js', 'gzip'))!
    expect(gz.headers['Content-Encoding']).toBe('gzip')
    expect(gunzipSync(gz.body).toString()).toBe(script)

    const plain = (await files().get('/assets/app-abc123.js', undefined))!
    expect(plain.headers['Content-Encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(script)
    expect(plain.headers['Content-Type']).toBe('text/javascript; charset=utf-8')
  })

  it('serves the build’s precompressed file when there is one', async () => {
    const reply = (await files().get('/assets/pre-1.js', 'br'))!
    expect(reply.body.toString()).toBe('PRECOMPRESSED-BR')
  })

  it('caches hashed assets for good and makes the page revalidate', async () => {
    expect((await files().get('/assets/app-abc123.js', 'br'))!.headers['Cache-Control']).toBe(
      IMMUTABLE_CACHE,
    )
    expect((await files().get('/', 'br'))!.headers['Cache-Control']).toBe(REVALIDATE_CACHE)
    expect((await files().get('/favicon.svg', 'br'))!.headers['Cache-Control']).toBe(
      REVALIDATE_CACHE,
    )
  })

  it('leaves small files uncompressed', async () => {
    const reply = (await files().get('/favicon.svg', 'br'))!
    expect(reply.headers['Content-Encoding']).toBeUndefined()
    expect(reply.body.toString()).toBe('<svg/>')
  })

  it('serves no source map unless asked, and then points browsers at it', async () => {
    expect(await files().get('/assets/app-abc123.js.map', 'br')).toBeNull()
    expect((await files().get('/assets/app-abc123.js', 'br'))!.headers.SourceMap).toBeUndefined()
    const withMaps = createStaticFiles({ dir, sourceMaps: true })
    expect(await withMaps.get('/assets/app-abc123.js.map', 'br')).not.toBeNull()
    expect((await withMaps.get('/assets/app-abc123.js', 'br'))!.headers.SourceMap).toBe(
      '/assets/app-abc123.js.map',
    )
  })

  it('falls back to the app for client-side routes, 404 for missing files, nothing outside the root', async () => {
    expect((await files().get('/room/abc', 'br'))!.headers['Content-Type']).toContain('text/html')
    expect(await files().get('/assets/missing.js', 'br')).toBeNull()
    expect(await files().get('/../../etc/passwd', 'br')).toBeNull()
    expect(await files().get(`/..${dir}-other/x.js`, 'br')).toBeNull()
  })
})
