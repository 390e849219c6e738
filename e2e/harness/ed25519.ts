/**
 * The Ed25519 harness page: what this browser's verifiers say about a
 * signature, as `window.ed25519Harness`. Not part of the app.
 */
import { acceptableSignature, strictVerify, verifyAsync } from '../../src/protocol/ed25519'

export interface Ed25519Verdicts {
  /** the browser's WebCrypto alone (BoringSSL in Chromium): true, false, or the error's name */
  webCrypto: boolean | string
  /** what the codec's async check says (the rules, then WebCrypto) */
  verifyAsync: boolean
  /** the rules, then the pure-JS check */
  strict: boolean
}

export interface Ed25519Harness {
  verdicts(signature: number[], message: number[], publicKey: number[]): Promise<Ed25519Verdicts>
}

type Bytes = Uint8Array<ArrayBuffer>

async function webCrypto(signature: Bytes, message: Bytes, publicKey: Bytes) {
  try {
    const key = await crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, [
      'verify',
    ])
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message)
  } catch (err) {
    return (err as Error).name
  }
}

declare global {
  interface Window {
    ed25519Harness?: Ed25519Harness
  }
}

window.ed25519Harness = {
  async verdicts(signature, message, publicKey) {
    const [s, m, k] = [signature, message, publicKey].map((b) => new Uint8Array(b)) as [
      Bytes,
      Bytes,
      Bytes,
    ]
    return {
      webCrypto: await webCrypto(s, m, k),
      verifyAsync: await verifyAsync(s, m, k),
      strict: acceptableSignature(s, k) && strictVerify(s, m, k),
    }
  },
}
document.getElementById('state')!.textContent = 'ready'
