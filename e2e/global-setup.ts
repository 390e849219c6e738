/**
 * Builds the network-layer harness page (vite.harness.config.ts) and serves
 * it for the whole run; its URL goes to the tests in MURMURATION_HARNESS_URL.
 * Builds the app once for every worker (serve.ts: buildApp), and the Node
 * commands the tests run (scripts/build-cli.mjs) when a source changed.
 */
import { build } from 'vite'
import { buildCli, cliIsStale } from '../scripts/build-cli.mjs'
import { APP_BUILT_ENV, APP_DIST, buildApp } from './fixtures/serve'
import { serveDir } from './fixtures/static-server'

export const HARNESS_DIR = 'e2e/artifacts/harness'

export default async function globalSetup(): Promise<() => Promise<void>> {
  // one after the other: each build keeps both cores busy
  await build({ configFile: 'vite.harness.config.ts' })
  await buildApp()
  // the relay, the app server and the agent run built, as people run them
  if (cliIsStale()) await buildCli()
  // workers inherit the runner's environment
  process.env[APP_BUILT_ENV] = APP_DIST
  const server = await serveDir(HARNESS_DIR)
  process.env.MURMURATION_HARNESS_URL = server.url
  return () => server.close()
}
