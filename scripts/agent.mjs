// `npm run agent` and `murmuration-agent`: the headless agent, built
// (scripts/build-cli.mjs). The bundle is rebuilt first when a source changed
// since it was made; then the agent runs in this process (it loads the Node
// 20 preload itself, before libp2p).
import { buildCli, CLI_ENTRY, cliIsStale } from './build-cli.mjs'
import { pathToFileURL } from 'node:url'

if (cliIsStale()) {
  // said only to a person at a terminal: a script reading stderr gets its one line
  if (process.stderr.isTTY) process.stderr.write('agent: building (its sources changed)…\n')
  try {
    await buildCli()
  } catch {
    // esbuild has printed what is wrong, with file and line
    process.stderr.write('agent: could not build the command line (see above)\n')
    process.exit(1)
  }
}
await import(pathToFileURL(CLI_ENTRY).href)
