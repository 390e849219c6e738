/**
 * A headless peer: the same role code as a tab, joining the same swarm.
 *
 *   npm run agent -- --help        (or `murmuration-agent --help` once linked)
 *
 * This entry only reads the command line (agent-options.ts: a mistake is one
 * line on stderr, exit code 2), answers --help, --version and --new-room,
 * and only then loads the run itself (agent-run.ts: libp2p, the LLM layer),
 * so those answer at once. It runs built (scripts/build-cli.mjs).
 *
 * Exit codes: 0 stopped, 1 could not start (app, relay, model), 2 usage,
 * 130 forced by a second Ctrl-C.
 */
import { readFileSync } from 'node:fs'
import { memberInviteLink } from '../protocol/invite'
import { EXIT_USAGE, parseAgentArgs, USAGE, UsageError } from './agent-options'

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

async function main(): Promise<void> {
  let command
  try {
    command = parseAgentArgs(process.argv.slice(2), process.env)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`agent: ${err.message} (see --help)\n`)
    process.exit(EXIT_USAGE)
  }
  if (command.kind === 'help') return void console.log(USAGE)
  if (command.kind === 'version') return void console.log(version())
  if (command.kind === 'new-room') {
    // the link alone on stdout (for `$(…)`), how to use it on stderr
    const link = memberInviteLink(command.app.origin, command.invite)
    // the name goes with the owner's own admit, made when the owner's link first joins
    const named =
      command.name !== undefined ? ` --name '${command.name.replace(/'/g, "'\\''")}'` : ''
    console.log(link)
    process.stderr.write(
      `agent: a new room "${command.invite.room.name}" on ${command.app.origin}, yours: this is the owner's link.\n` +
        `  Open it in your tabs, or: npm run agent -- --role executor --invite '${link}'${named}\n` +
        `  Give other people their own link: npm run agent -- --invite '${link}' --invite-person NAME\n` +
        '  (whoever holds this link is you, the owner, in the room; the app need not be running yet)\n',
    )
    return
  }
  // Node 20 lacks what libp2p uses (Promise.withResolvers, WebSocket): set up
  // before the run loads it, and only for a run (it costs --help a fifth of a second)
  await import('../../scripts/node-preload.mjs')
  const { runAgent } = await import('./agent-run')
  await runAgent(command.options)
}

main().catch((err: unknown) => {
  // anything unexpected still ends as one line, with the stack only when debugging
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  if (process.env.DEBUG) console.error(err)
  process.stderr.write(`agent: ${message}\n`)
  process.exit(1)
})
