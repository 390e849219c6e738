// `npm run relay`: the relay alone (relay/main.ts), built (scripts/build-cli.mjs).
// The bundle is rebuilt first when a source changed since it was made; then
// the relay runs in this process (package.json imports the Node 20 preload
// before this script, so before libp2p).
import { pathToFileURL } from 'node:url'
import { buildCli, cliIsStale, RELAY_ENTRY } from './build-cli.mjs'

if (cliIsStale()) await buildCli()
await import(pathToFileURL(RELAY_ENTRY).href)
