/**
 * The headless agent's --help text (the options agent-options.ts parses).
 */
import { CAPABILITIES } from '../llm/types'
import { DEFAULT_BUDGET } from '../runtime/budget'
import { TURN_SECRET_ENV } from '../../relay/ice'
import {
  DEFAULT_AGENT_CAPACITY,
  DEFAULT_APP_URL,
  DEFAULT_MODELS,
  DEFAULT_PLANS_DIR,
  MAX_AGENT_CAPACITY,
  PROVIDERS,
} from './agent-defaults'

export const USAGE = `Usage: murmuration-agent [options]      (or: npm run agent -- [options])

       murmuration-agent --new-room ROOM [--name YOUR-NAME] [--app URL]
       murmuration-agent --invite OWNER-LINK --invite-person NAME [--co-owner]
       murmuration-agent --invite OWNER-LINK --remove-member WHO | --reset-invite WHO

A headless Murmuration peer: the same role code as a browser tab, joining the
same swarm through the relay. It prints what it does, one line each, when it
happens (claims, splits, scores, results; each wait before a call tries again,
as it starts, with its length and cause: a rate limit, an overload, a server
error, a rejected reply); an observer prints the plan tree as it grows and the
final plan.

Options:
  --role R            decomposer | scorer | executor | observer (default executor)
  --invite LINK       your invite link to the room (the app's Invite panel, or
                      --new-room; quote it: its secret is after the '#'). A link
                      is one person's: everything opened from it (tabs, agents)
                      is that one member. A room name alone joins nothing
  --new-room ROOM     make a new room (lowercase letters, digits, dashes) that you
                      own, print your (the owner's) invite link on the app and exit
  --name NAME         your name in the room, as its maker (owner's link only; 1 to
                      40 characters; default Owner): it goes with the owner's own
                      admit, the first time the owner's link joins (with
                      --new-room, into the commands printed)
  --invite-person NAME  owner or co-owner: admit a new person to the room of
                      --invite, print their own invite link and exit
  --co-owner          with --invite-person: they become a co-owner, who can invite,
                      remove people and reset links as the owner does
  --remove-member WHO owner or co-owner: remove a member (name or member id): the
                      room moves to a new key that reaches everyone else; exit
  --reset-invite WHO  owner or co-owner: reset a person's invite link (name or
                      member id): the old link finds nothing new; print their new
                      link and exit
  --wait-for-peer S   with the three above: wait up to S seconds (default 60) for
                      a peer of the room to take the change; if none does, it
                      stays in --data and goes out the next time an agent runs
                      with that --data and meets a peer (the agent says which)
  --app URL           the app started by \`npm start\`, to find its relays (every one it
                      lists) and STUN/TURN servers (default: the invite link's
                      address; else ${DEFAULT_APP_URL})
  --relay MULTIADDR   register with this relay instead of asking --app (repeatable:
                      with several, the room outlives any one of them)
  --turn URL          a STUN/TURN server for WebRTC (repeatable: stun:, turn:, turns:),
                      instead of the app's; with --relay the agent has none otherwise
  --turn-secret S     coturn's static-auth-secret: the agent makes its own short-lived
                      TURN credentials (better: $${TURN_SECRET_ENV}, out of \`ps\`)
  --ice URL           fetch STUN/TURN servers from this /ice.json (e.g. another app's)
  --data DIR          identity and records (default .data/agents/<room>-<id>-<role>); a
                      directory in use by another agent is not shared: this one
                      takes DIR.2, DIR.3, … with its own identity
  --provider P        offline | anthropic | openai | openai-compatible (default offline)
  --model NAME        model id (default per provider: ${PROVIDERS.map((p) => `${p} ${DEFAULT_MODELS[p]}`).join(', ')})
  --base-url URL      provider endpoint; for openai-compatible the default is
                      http://localhost:11434/v1 (Ollama)
  --capabilities C,…  executor: ${CAPABILITIES.join(', ')} (default all)
  --capacity N        LLM calls at once, 1..${MAX_AGENT_CAPACITY} (default ${DEFAULT_AGENT_CAPACITY})
  --run-code          executor: let the model run the JavaScript it writes, in this
                      agent's sandbox (a worker thread: no network, no files, a time
                      and memory limit); needed to offer can_run_code. Off by default
  --web-search        executor: let the model search the web with the provider's own
                      search, on your key (Anthropic, OpenAI only; $10 per 1,000
                      searches on top of tokens); needed to offer can_query_api.
                      Off by default
  --answer-from-knowledge  executor: offer can_query_api without a search: such
                      answers come from the model's memory and say they were not
                      checked live. Off by default
  --mcp "[NAME=]COMMAND ARGS"  executor: an MCP server this agent starts (stdio;
                      repeatable), e.g. --mcp "files=npx -y @modelcontextprotocol/
                      server-filesystem /srv/notes". It gets PATH, HOME, USER, SHELL
                      and TERM, not your API key; it stops with the agent
  --mcp-url [NAME=]URL  executor: an MCP server over Streamable HTTP (repeatable)
  --allow-tool GROUP/TOOL[=own|anyone]  executor: turn a server's tool on
                      (repeatable; GROUP/* for all of them). Every tool is off
                      without it. A read-only tool then serves any member's goals;
                      one that may write, or reaches beyond its server, only your
                      own (another member's call is refused and a line says so),
                      unless =anyone. The room learns
                      each group's NAME (default: the server's own), its tools'
                      names and what they may do; never the command, URL or files
  --goal TEXT         submit this goal once connected (any role; an observer then
                      publishes this goal and nothing else), print when it is
                      done and write its final plan (Markdown) to --plans
  --plans DIR         where --goal's final plan is written (default ${DEFAULT_PLANS_DIR})
  --max-tokens-per-goal N   caps on what this agent spends with its key: tokens
  --max-tokens-per-hour N   (input + output) and estimated cost in US dollars,
  --max-cost-per-goal USD   per root goal and per sliding hour; "none" for no
  --max-cost-per-hour USD   cap (defaults ${DEFAULT_BUDGET.tokensPerGoal}, ${DEFAULT_BUDGET.tokensPerHour}, ${DEFAULT_BUDGET.usdPerGoal}, ${DEFAULT_BUDGET.usdPerHour}).
                      An hourly cap reached pauses the role; a per-goal cap stops
                      work on that goal. A model with no known price: cost caps
                      cannot be enforced, token caps still are
  --goals-from WHO    anyone (default): work on any member's goals; own: only on
                      goals this agent submitted
  --rtc-bind IP       local address for WebRTC candidates (tests: 127.0.0.1)
  --log-calls FILE    append every LLM call this agent makes to FILE, one JSON
                      object a line: prompts, replies, errors, tokens, cost, time
                      (never the API key; the file is yours, nothing sends it)
  --skip-check        do not make the one cheap LLM call that checks key and model at
                      start (it waits up to 10 minutes for a local server that
                      loads its model, and says so every 30 s)
  --quiet             print only errors, the start line and a --goal's end
  -h, --help          print this help and exit
  -v, --version       print the version and exit

The API key comes from the environment, never the command line (so it stays
out of shell history and process lists): MURMURATION_API_KEY, or
ANTHROPIC_API_KEY / OPENAI_API_KEY for those providers. It goes only to the
provider. The network's own chatter (links, syncs, dials) shows only with
DEBUG=murmuration:* (and libp2p:* for the stack itself).
Ctrl-C stops cleanly; a second Ctrl-C exits at once.`
