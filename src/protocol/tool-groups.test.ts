/**
 * Tool groups on the wire (protocol version 8, issue 57): what a presence
 * beat may announce, a judgement's tool group, a result's tool step, and
 * the room's groups merged for planners.
 */
import { describe, expect, it } from 'vitest'
import { stamp, type Presence } from './records'
import { judgementSchema, presenceSchema, resultSchema } from './schemas'
import { MAX_STEP_TOOL_OUTPUT, toolStepSchema } from './steps'
import { groupNameFrom, mergeToolGroups, MAX_GROUP_TOOLS, type ToolGroup } from './tool-groups'

const FROM = `12D3KooW${'A'.repeat(44)}`
const files: ToolGroup = {
  name: 'files',
  tools: [
    { name: 'read_text_file', readOnly: true, destructive: false, openWorld: false, anyone: true },
    { name: 'write_file', readOnly: false, destructive: true, openWorld: false, anyone: false },
  ],
}

function beat(fields: Partial<Presence>): unknown {
  return stamp<Presence>({
    kind: 'presence',
    room: 'sim',
    from: FROM,
    role: 'executor',
    capabilities: ['can_write_text'],
    holding: [],
    load: 0,
    capacity: 4,
    healthy: true,
    model: 'm',
    offline: true,
    boot: 1,
    seq: 1,
    every: 5_000,
    ...fields,
  })
}

describe('presence: an executor announces its tool groups', () => {
  it('takes names and annotations only, each group and tool once', () => {
    expect(presenceSchema.safeParse(beat({ tools: [files] })).success).toBe(true)
    // absent means none; an empty list is not how "none" is said
    expect(presenceSchema.safeParse(beat({})).success).toBe(true)
    expect(presenceSchema.safeParse(beat({ tools: [] })).success).toBe(false)
    expect(presenceSchema.safeParse(beat({ tools: [files, files] })).success).toBe(false)
    const twice = { ...files, tools: [files.tools[0]!, files.tools[0]!] }
    expect(presenceSchema.safeParse(beat({ tools: [twice] })).success).toBe(false)
  })

  it('rejects what could carry a path, a URL or markup, and anything more than the fields', () => {
    const bad: unknown[] = [
      { ...files, name: 'Files' },
      { ...files, name: '/home/alice/notes' },
      { ...files, name: 'x'.repeat(33) },
      { ...files, tools: [{ ...files.tools[0]!, name: 'read <file>' }] },
      { ...files, tools: [{ ...files.tools[0]!, description: 'reads /home/alice' }] },
      { ...files, url: 'http://127.0.0.1:3001/mcp?token=secret' },
      {
        ...files,
        tools: Array.from({ length: MAX_GROUP_TOOLS + 1 }, (_, i) => ({
          ...files.tools[0]!,
          name: `t${i}`,
        })),
      },
    ]
    for (const group of bad)
      expect(presenceSchema.safeParse(beat({ tools: [group as ToolGroup] })).success).toBe(false)
  })

  it('only from an executor, as capabilities', () => {
    expect(
      presenceSchema.safeParse(beat({ role: 'scorer', capabilities: [], tools: [files] })).success,
    ).toBe(false)
  })
})

describe('a judgement may name a tool group; a result may carry tool steps', () => {
  it('judgement.tool is a group name, optional', () => {
    expect(judgementSchema.safeParse({ atomic: true, capability: 'can_write_text' }).success).toBe(
      true,
    )
    expect(
      judgementSchema.safeParse({ atomic: true, capability: 'can_write_text', tool: 'files' })
        .success,
    ).toBe(true)
    expect(
      judgementSchema.safeParse({ atomic: true, capability: 'can_write_text', tool: '' }).success,
    ).toBe(false)
  })

  it('a tool step: group, name, input and output cut to their limits, a status', () => {
    const step = {
      type: 'tool',
      group: 'files',
      name: 'read_text_file',
      input: '{"path":"/tmp/x"}',
      output: 'hello',
      status: 'ok',
      durationMs: 12,
    }
    expect(toolStepSchema.safeParse(step).success).toBe(true)
    expect(toolStepSchema.safeParse({ ...step, status: 'maybe' }).success).toBe(false)
    expect(
      toolStepSchema.safeParse({ ...step, output: 'x'.repeat(MAX_STEP_TOOL_OUTPUT + 1) }).success,
    ).toBe(false)
    const result = stamp({
      kind: 'result',
      room: 'sim',
      from: FROM,
      task: 'a'.repeat(32),
      epoch: 0,
      output: 'done',
      usage: { provider: 'p', model: 'm', inputTokens: 1, outputTokens: 1, offline: true },
      steps: [step],
    } as never)
    expect(resultSchema.safeParse(result).success).toBe(true)
  })
})

describe('the room’s tool groups, merged for planners', () => {
  it('lists each group and tool once, sorted; a tool is open to anyone if one executor opens it', () => {
    const open = {
      name: 'files',
      tools: [{ ...files.tools[1]!, anyone: true }],
    }
    const memory: ToolGroup = {
      name: 'memory',
      tools: [{ ...files.tools[0]!, name: 'read_graph' }],
    }
    expect(mergeToolGroups([[files], [memory, open]])).toEqual([
      { name: 'files', tools: [files.tools[0], { ...files.tools[1], anyone: true }] },
      memory,
    ])
  })

  it('names a group from a server’s own name', () => {
    expect(groupNameFrom('secure-filesystem-server')).toBe('secure-filesystem-server')
    expect(groupNameFrom('mcp-servers/everything')).toBe('everything')
    expect(groupNameFrom('Memory Server!')).toBe('memory-server')
    expect(groupNameFrom('///')).toBe('tools')
  })
})
