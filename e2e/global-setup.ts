/**
 * Builds the network-layer harness page (vite.harness.config.ts) and serves
 * it for the whole run; its URL goes to the tests in MURMURATION_HARNESS_URL.
 */
import { build } from 'vite'
import { serveDir } from './fixtures/static-server'

export const HARNESS_DIR = 'e2e/artifacts/harness'

export default async function globalSetup(): Promise<() => Promise<void>> {
  await build({ configFile: 'vite.harness.config.ts' })
  const server = await serveDir(HARNESS_DIR)
  process.env.MURMURATION_HARNESS_URL = server.url
  return () => server.close()
}
