#!/usr/bin/env node
// `murmuration-agent`: the headless peer (src/cli/agent.ts) as a command,
// for `npm link` or `npx murmuration-agent` in a clone. It runs the built
// agent (scripts/agent.mjs builds it first when its sources changed).
import '../scripts/agent.mjs'
