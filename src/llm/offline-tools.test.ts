/**
 * The offline model with a person's tools (issue 57): a goal that cues a
 * tool gets a subgoal carrying the cue, judged to need its group; the
 * execute call runs through the tool loop, calls what was cued and quotes
 * what came back; every call is a step and a line of the call log; and a
 * leaf that needs a group this executor cannot lend is not answered at all.
 */
import { describe, expect, it } from 'vitest'
import type { ToolGroup } from '../protocol/tool-groups'
import type { LlmCallReport } from './call-report'
import { createOfflineProvider, offlineAnswer } from './offline'
import { runLlmTask } from './run-task'
import { validateOutput } from './schemas'
import type { Toolbox, ToolCallOutcome } from './toolbox'
import { toolCues } from './tool-cues'
import type { LlmTask } from './types'

const FILES: ToolGroup = {
  name: 'files',
  tools: [
    { name: 'read_text_file', readOnly: true, destructive: false, openWorld: false, anyone: true },
  ],
}
const CUE = 'read_text_file {"path": "/srv/secret.txt"}'
const GOAL = `Quote the note in ${CUE} and plan around it`

/** A toolbox that answers like a server would, and remembers what it was asked. */
function box(answer: ToolCallOutcome): Toolbox & { asked: unknown[] } {
  const asked: unknown[] = []
  return {
    group: 'files',
    asked,
    tools: [
      {
        name: 'read_text_file',
        description: 'Read a file',
        inputSchema: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
      },
      { name: 'list_allowed_directories', description: 'List', inputSchema: { type: 'object' } },
    ],
    async call(name, input) {
      asked.push({ name, input })
      return answer
    },
  }
}

describe('tool cues', () => {
  it('finds a tool name followed by a JSON object, in order, and nothing else', () => {
    const text = `first list_allowed_directories {} then ${CUE}; not read_text_file alone, nor xread_text_file {"a":1}, nor read_text_file {broken`
    expect(toolCues(text, ['read_text_file', 'list_allowed_directories'])).toEqual([
      { name: 'list_allowed_directories', input: {}, text: 'list_allowed_directories {}' },
      { name: 'read_text_file', input: { path: '/srv/secret.txt' }, text: CUE },
    ])
  })
})

describe('the offline model splits and judges around a cued tool', () => {
  it('gives the cue a subgoal of its own, and its scorer names the group', () => {
    const decompose: LlmTask = {
      kind: 'decompose',
      path: [GOAL],
      depth: 0,
      maxDepth: 2,
      roomTools: [FILES],
    }
    const split = offlineAnswer(decompose, 'a')
    expect(split.subgoals[0]!.text).toBe(`Get what it needs from files with ${CUE}`)
    expect(split.subgoals.length).toBeLessThanOrEqual(6)
    expect(validateOutput('decompose', split).ok).toBe(true)
    const score: LlmTask = {
      kind: 'score',
      path: [GOAL],
      subgoals: split.subgoals,
      rationale: split.rationale,
      depth: 1,
      maxDepth: 2,
      roomTools: [FILES],
    }
    const judged = offlineAnswer(score, 'b')
    expect(judged.judgements[0]).toEqual({
      atomic: true,
      capability: 'can_write_text',
      tool: 'files',
    })
    expect(judged.judgements.slice(1).every((j) => j.tool === undefined)).toBe(true)
    expect(validateOutput('score', judged, score).ok).toBe(true)
    // without the room's tools, nothing changes
    expect(offlineAnswer({ ...decompose, roomTools: undefined } as LlmTask, 'a')).not.toEqual(split)
  })
})

describe('an execute call that needs a tool group', () => {
  const task: LlmTask = {
    kind: 'execute',
    path: [GOAL],
    task: `Get what it needs from files with ${CUE}`,
    capability: 'can_write_text',
    tool: 'files',
    dependencies: [],
  }
  const provider = createOfflineProvider({ latencyMs: 0 })

  it('calls the cued tool through the loop and quotes what it returned, as a step and in the log', async () => {
    const files = box({ status: 'ok', text: 'The code word is fern-42.' })
    let report: LlmCallReport | undefined
    const outcome = await runLlmTask(task, provider, {
      backoffMs: 0,
      tools: { toolbox: (group) => (group === 'files' ? files : undefined) },
      onCall: (r) => (report = r),
    })
    expect(files.asked).toEqual([{ name: 'read_text_file', input: { path: '/srv/secret.txt' } }])
    expect(outcome.ok).toBe(true)
    if (!outcome.ok || outcome.kind !== 'execute') return
    const value = outcome.value as { output: string; steps?: unknown[] }
    expect(value.output).toContain('The code word is fern-42.')
    expect(value.steps).toEqual([
      {
        type: 'tool',
        group: 'files',
        name: 'read_text_file',
        input: '{"path":"/srv/secret.txt"}',
        output: 'The code word is fern-42.',
        status: 'ok',
        durationMs: expect.any(Number),
      },
    ])
    expect(report?.toolCalls).toEqual([
      expect.objectContaining({
        group: 'files',
        tool: 'read_text_file',
        status: 'ok',
        output: 'The code word is fern-42.',
      }),
    ])
  })

  it('says a refused call was refused, and never passes it off as an answer', async () => {
    const files = box({ status: 'refused', text: 'refused: files/read_text_file is off' })
    const outcome = await runLlmTask(task, provider, {
      backoffMs: 0,
      tools: { toolbox: () => files },
    })
    if (!outcome.ok || outcome.kind !== 'execute') throw new Error('expected an answer')
    const value = outcome.value as { output: string; steps?: { status: string }[] }
    expect(value.steps?.[0]?.status).toBe('refused')
    expect(value.output).toContain('read_text_file did not answer')
  })

  it('is not answered without the group (turned off meanwhile): no call, a failure', async () => {
    const outcome = await runLlmTask(task, provider, {
      backoffMs: 0,
      tools: { toolbox: () => undefined },
    })
    expect(outcome).toMatchObject({ ok: false, errorKind: 'other', attempts: 0 })
    if (!outcome.ok) expect(outcome.error).toBe('the tool group files is not offered here')
  })
})

describe('a score that names a tool group', () => {
  const score: LlmTask = {
    kind: 'score',
    path: ['Plan'],
    subgoals: [
      { text: 'Read it', dependsOn: [] },
      { text: 'Write it', dependsOn: [] },
    ],
    rationale: '',
    depth: 1,
    maxDepth: 2,
    roomTools: [FILES],
  }
  const reply = (tool: unknown) => ({
    score: 0.8,
    notes: 'ok',
    judgements: [
      { atomic: true, capability: 'can_write_text', tool },
      { atomic: true, capability: 'can_write_text', tool: null },
    ],
  })

  it('takes a group of the room, drops a null one, and sends an unknown one back', () => {
    const ok = validateOutput('score', reply('files'), score)
    expect(ok.ok && ok.value.judgements).toEqual([
      { atomic: true, capability: 'can_write_text', tool: 'files' },
      { atomic: true, capability: 'can_write_text' },
    ])
    const stray = validateOutput('score', reply('calendar'), score)
    expect(stray.ok).toBe(false)
    if (!stray.ok)
      expect(stray.error).toContain(
        'judgements.0.tool: "calendar" is not a tool group of <tools>; name one of files, or null',
      )
  })
})
