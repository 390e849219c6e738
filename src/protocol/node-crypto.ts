/**
 * node:crypto when running on Node, else nothing: the protocol layer is
 * shared with tabs, so it cannot import a Node module. Node 20.16 and later
 * hand built-ins out through `process.getBuiltinModule`. Only the calls the
 * native fast paths use (sha256.ts, xchacha.ts) are typed.
 */

interface Cipher {
  setAAD(aad: Uint8Array, options: { plaintextLength: number }): void
  update(data: Uint8Array): Uint8Array
  final(): Uint8Array
}

type AeadOptions = { authTagLength: number }

export interface NodeCrypto {
  createHash(algorithm: 'sha256'): { update(data: Uint8Array): { digest(): Uint8Array } }
  createCipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    nonce: Uint8Array,
    options: AeadOptions,
  ): Cipher & { getAuthTag(): Uint8Array }
  createDecipheriv(
    algorithm: 'chacha20-poly1305',
    key: Uint8Array,
    nonce: Uint8Array,
    options: AeadOptions,
  ): Cipher & { setAuthTag(tag: Uint8Array): void }
}

export function nodeCrypto(): NodeCrypto | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  return proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
}
