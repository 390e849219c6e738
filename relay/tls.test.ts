import { X509Certificate } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadOrCreateTlsCert, readTlsFiles, TlsConfigError } from './tls'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'murmuration-tls-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the --https certificate', () => {
  it('is made once, names every address, and is kept across starts', async () => {
    const hosts = ['127.0.0.1', 'localhost', '10.77.0.1']
    const first = await loadOrCreateTlsCert(join(dir, 'a'), hosts)
    expect(first.created).toBe(true)
    const cert = new X509Certificate(first.cert)
    expect(cert.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost, IP Address:10.77.0.1')
    // the fingerprint we print is the one browsers show
    expect(first.fingerprint).toBe(cert.fingerprint256)
    expect(
      cert.checkPrivateKey(await import('node:crypto').then((c) => c.createPrivateKey(first.key))),
    ).toBe(true)
    expect(Date.parse(cert.validTo) - Date.now()).toBeLessThanOrEqual(398 * 86_400_000)

    const again = await loadOrCreateTlsCert(join(dir, 'a'), hosts)
    expect(again.created).toBe(false)
    expect(again.fingerprint).toBe(first.fingerprint)
  })

  it('is made anew when the machine has an address it does not name', async () => {
    const first = await loadOrCreateTlsCert(join(dir, 'b'), ['127.0.0.1'])
    const moved = await loadOrCreateTlsCert(join(dir, 'b'), ['127.0.0.1', '192.168.1.20'])
    expect(moved.created).toBe(true)
    expect(moved.fingerprint).not.toBe(first.fingerprint)
  })

  it('refuses --cert/--key that are not a pair, or not PEM', async () => {
    const one = await loadOrCreateTlsCert(join(dir, 'c1'), ['127.0.0.1'])
    const two = await loadOrCreateTlsCert(join(dir, 'c2'), ['127.0.0.1'])
    await expect(readTlsFiles(one.certPath, two.keyPath)).rejects.toThrow(TlsConfigError)
    const junk = join(dir, 'junk.pem')
    await writeFile(junk, 'not a certificate')
    await expect(readTlsFiles(junk, one.keyPath)).rejects.toThrow(/not a PEM certificate/)
    await expect(readTlsFiles(join(dir, 'missing.pem'), one.keyPath)).rejects.toThrow(/cannot read/)
    const ok = await readTlsFiles(one.certPath, one.keyPath)
    expect(ok.fingerprint).toBe(one.fingerprint)
  })
})
