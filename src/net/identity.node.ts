/**
 * Node identity: an Ed25519 key kept in a file (protobuf-encoded, 0600),
 * created on first use, so a headless agent or the relay keeps its PeerId
 * across restarts.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { InvalidInitError } from './errors'

/** Loads the key at `path`, or creates it (and its directory) when absent. */
export async function loadOrCreateKeyFile(path: string): Promise<PrivateKey> {
  let bytes: Uint8Array | undefined
  try {
    bytes = await readFile(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (bytes !== undefined) {
    try {
      return privateKeyFromProtobuf(bytes)
    } catch (err) {
      throw new InvalidInitError(`${path} is not a libp2p private key: ${(err as Error).message}`)
    }
  }
  const key = await generateKeyPair('Ed25519')
  await mkdir(dirname(path), { recursive: true })
  // write then rename: a crash mid-write must not leave a truncated key
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, privateKeyToProtobuf(key), { mode: 0o600 })
  await rename(tmp, path)
  return key
}
