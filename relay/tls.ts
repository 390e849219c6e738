/**
 * The certificate `npm start -- --https` serves the app (and the relay's
 * WebSocket, through the app's port) with: made on first start and kept in
 * the data dir, or the owner's own files (--cert/--key).
 *
 * A self-signed certificate is what a LAN party can have: no public name, no
 * CA. The browser warns once per machine; the friend compares the
 * fingerprint `npm start` prints with the one the browser shows and accepts
 * it. From then on the page is a secure context.
 */
import { createHash, createPrivateKey, webcrypto, X509Certificate } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { join } from 'node:path'
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'

/**
 * Browsers refuse certificates valid for more than 398 days (even after a
 * click-through in some versions); a year is plenty and renewal is automatic.
 */
export const TLS_CERT_VALIDITY_DAYS = 365

/** Renew this long before expiry, so a long-running party is not cut off mid-plan. */
const TLS_RENEW_BEFORE_DAYS = 7

const DAY_MS = 86_400_000

export interface TlsFiles {
  cert: string
  key: string
  /** SHA-256 of the certificate (DER), as browsers show it: AA:BB:… */
  fingerprint: string
  /** where they are on disk */
  certPath: string
  keyPath: string
  /** made by this call (first start, or the addresses or the date changed) */
  created: boolean
}

export class TlsConfigError extends Error {
  override name = 'TlsConfigError'
}

export function fingerprintOf(certPem: string): string {
  const der = new X509Certificate(certPem).raw
  return createHash('sha256')
    .update(der)
    .digest('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:')
}

/** Reads the owner's certificate and key (PEM). */
export async function readTlsFiles(certPath: string, keyPath: string): Promise<TlsFiles> {
  let cert: string, key: string
  try {
    ;[cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')])
  } catch (err) {
    throw new TlsConfigError(`cannot read --cert/--key: ${(err as Error).message}`)
  }
  let parsed: X509Certificate
  try {
    parsed = new X509Certificate(cert)
  } catch {
    throw new TlsConfigError(`${certPath} is not a PEM certificate`)
  }
  let privateKey: ReturnType<typeof createPrivateKey>
  try {
    privateKey = createPrivateKey(key)
  } catch {
    throw new TlsConfigError(`${keyPath} is not a PEM private key`)
  }
  if (!parsed.checkPrivateKey(privateKey)) {
    throw new TlsConfigError(`${keyPath} is not the key of ${certPath}`)
  }
  return { cert, key, fingerprint: fingerprintOf(cert), certPath, keyPath, created: false }
}

/**
 * The certificate in `dir` (tls-cert.pem, tls-key.pem), made anew when there
 * is none, when it does not name every one of `hosts` (a new LAN address), or
 * when it is about to expire.
 */
export async function loadOrCreateTlsCert(dir: string, hosts: string[]): Promise<TlsFiles> {
  const certPath = join(dir, 'tls-cert.pem')
  const keyPath = join(dir, 'tls-key.pem')
  if (existsSync(certPath) && existsSync(keyPath)) {
    const files = await readTlsFiles(certPath, keyPath).catch(() => undefined)
    if (files !== undefined && stillGood(new X509Certificate(files.cert), hosts)) return files
  }
  const { cert, key } = await createSelfSigned(hosts)
  await mkdir(dir, { recursive: true })
  await writeFile(keyPath, key, { mode: 0o600 })
  await writeFile(certPath, cert)
  return { cert, key, fingerprint: fingerprintOf(cert), certPath, keyPath, created: true }
}

function stillGood(cert: X509Certificate, hosts: string[]): boolean {
  if (Date.parse(cert.validTo) - Date.now() < TLS_RENEW_BEFORE_DAYS * DAY_MS) return false
  const names = cert.subjectAltName ?? ''
  return hosts.every((h) => names.includes(isIP(h) ? `IP Address:${h}` : `DNS:${h}`))
}

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const

async function createSelfSigned(hosts: string[]): Promise<{ cert: string; key: string }> {
  const crypto = webcrypto as unknown as Crypto
  const keys = (await crypto.subtle.generateKey(ECDSA_P256, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  const now = Date.now()
  const serial = Buffer.from(crypto.getRandomValues(new Uint8Array(16)))
  serial[0]! &= 0x7f // a positive serial number
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      name: 'CN=Murmuration on this network',
      notBefore: new Date(now - DAY_MS), // tolerate a friend's clock that is a little behind
      notAfter: new Date(now + TLS_CERT_VALIDITY_DAYS * DAY_MS),
      signingAlgorithm: ECDSA_P256,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          hosts.map((h) => ({ type: isIP(h) ? ('ip' as const) : ('dns' as const), value: h })),
        ),
      ],
    },
    crypto,
  )
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey)
  const key = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')
  return { cert: cert.toString('pem'), key }
}
