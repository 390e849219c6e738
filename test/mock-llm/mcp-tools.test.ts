/**
 * The mock LLM calls a person's own tools on cue (issue 57), through the
 * real providers and a real MCP server: an execute task whose leaf cues
 * read_text_file gets the reference filesystem server's tool called with
 * those arguments, and the answer quotes what the file REALLY holds (made
 * up by the test), on Anthropic's wire and on Chat Completions.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProvider } from '../../src/llm/provider'
import { runLlmTask } from '../../src/llm/run-task'
import type { LlmTask, ModelConfig } from '../../src/llm/types'
import { McpHub } from '../../src/runtime/mcp/hub'
import { nodeStdio } from '../../src/runtime/mcp/stdio.node'
import { serverEntry } from '../mcp/http-bridge'
import { createMockLlmServer, type MockLlmServer } from './server'

let mock: MockLlmServer
let hub: McpHub
let dir: string
const secret = `moss-${randomBytes(8).toString('hex')}`

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mock-mcp-'))
  await writeFile(join(dir, 'note.txt'), secret)
  mock = await createMockLlmServer()
  hub = new McpHub({ stdio: nodeStdio, canAsk: false })
  await hub.setServers([
    {
      kind: 'stdio',
      name: 'files',
      command: process.execPath,
      args: [serverEntry('server-filesystem'), dir],
    },
  ])
  hub.setConsent({ files: { read_text_file: 'anyone' } })
})
afterAll(async () => {
  await hub.close()
  await mock.close()
  await rm(dir, { recursive: true, force: true })
})

const task = (): LlmTask => ({
  kind: 'execute',
  path: ['Quote the note'],
  task: `Get it with read_text_file {"path": "${join(dir, 'note.txt')}"}`,
  capability: 'can_write_text',
  tool: 'files',
  dependencies: [],
})

describe.each([
  ['Anthropic', { provider: 'anthropic', model: 'claude-haiku-4-5' }],
  ['Chat Completions', { provider: 'openai-compatible', model: 'mock-model' }],
] as const)('the mock LLM with a person’s tools, on %s', (_, config) => {
  it('calls the cued tool and quotes what it returned', async () => {
    const model: ModelConfig = { ...config, apiKey: 'k', baseUrl: `${mock.url}/v1` }
    const from = mock.requests.length
    const outcome = await runLlmTask(task(), createProvider(model), {
      backoffMs: 0,
      tools: {
        toolbox: (group) => hub.toolbox(group, { goal: null, goalText: 'g', ownGoal: false }),
      },
    })
    if (!outcome.ok || outcome.kind !== 'execute') throw new Error(JSON.stringify(outcome))
    const value = outcome.value as { output: string; steps?: { type: string; output?: string }[] }
    expect(value.output).toContain(
      `### What read_text_file returned\n\n\`\`\`text\n${secret}\n\`\`\``,
    )
    expect(value.steps).toEqual([
      expect.objectContaining({ type: 'tool', name: 'read_text_file', output: secret }),
    ])
    expect(mock.requests.slice(from).map((r) => r.tool)).toEqual([
      'function-call',
      'answer-after-tools',
    ])
  })
})
