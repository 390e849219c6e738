/**
 * Vitest's global setup: the Node commands (agent, relay, `npm start`'s
 * server) run built, as people run them (scripts/build-cli.mjs), so the
 * tests that spawn them need the bundle as fresh as the sources.
 */
import { buildCli, cliIsStale } from '../scripts/build-cli.mjs'

export default async function setup(): Promise<void> {
  if (cliIsStale()) await buildCli()
}
