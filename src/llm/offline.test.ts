/**
 * The offline model as an honest placeholder (issue 56): titles and answers
 * built from the goal's and the leaf's own words, whole; every answer says
 * what it is; valid against the task schemas at every step, so a tree
 * reaches leaves; a veto's note and a redo's note visibly used; code leaves
 * whose programs do what the answer says; nothing carried between goals.
 * The swarm-level test of several goals in one room is
 * test/offline.swarm.node.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { MAX_GOAL_TEXT, MAX_SUBGOAL_TEXT } from '../protocol/limits'
import { createOfflineProvider, OFFLINE_MODEL, offlineAnswer } from './offline'
import { offlineCodeModel, offlineProgram } from './offline-model/code-model'
import { PLACEHOLDER, PLACEHOLDER_MARK } from './offline-model/execute'
import { buildPrompts } from './prompts'
import { runLlmTask } from './run-task'
import { validateOutput } from './schemas'
import type { Capability, LlmTask, SubgoalDraft } from './types'

type ExecuteTask = Extract<LlmTask, { kind: 'execute' }>
type ScoreTask = Extract<LlmTask, { kind: 'score' }>

const JAPAN = 'Plan a two-week trip to Japan'
const PRIMES = 'Compute the first 20 prime numbers and their sum'
const DOCS = 'Write documentation for a REST API'
const WEDDING = 'Plan a wedding'
const GOALS = [JAPAN, PRIMES, DOCS, WEDDING, 'Learn to play the guitar', 'Renovate the kitchen']
const SEEDS = ['peer-a', 'peer-b', 'peer-c', 'peer-d']
const ALL: Capability[] = ['can_write_text', 'can_run_code', 'can_query_api']

const decompose = (path: string[], seed = 'peer-a', extra: Partial<LlmTask> = {}) =>
  offlineAnswer(
    { kind: 'decompose', path, depth: path.length - 1, maxDepth: 3, ...extra } as LlmTask,
    seed,
  ) as { subgoals: SubgoalDraft[]; rationale: string }

const score = (path: string[], subgoals: SubgoalDraft[], seed = 's1', depth = path.length) => {
  const task: ScoreTask = { kind: 'score', path, subgoals, rationale: '', depth, maxDepth: 3 }
  const out = offlineAnswer({ ...task, roomCapabilities: ALL }, seed)
  expect(validateOutput('score', out, task).ok).toBe(true)
  return out
}

const execute = (task: string, extra: Partial<ExecuteTask> = {}) =>
  offlineAnswer({
    kind: 'execute',
    path: [JAPAN],
    task,
    capability: 'can_write_text',
    dependencies: [],
    ...extra,
  }).output

interface Leaf {
  path: string[]
  text: string
  capability: Capability
  output: string
}

/** Runs the offline roles over a whole goal, as the swarm would: every leaf and the roll-up. */
function plan(goal: string, seed = 'peer-a') {
  const leaves: Leaf[] = []
  const walk = (path: string[], depth: number): string => {
    const split = decompose(path, seed, { depth })
    expect(validateOutput('decompose', split).ok).toBe(true)
    const { judgements } = score(path, split.subgoals, 'scorer', depth + 1)
    const results: { text: string; output: string }[] = []
    for (const [i, s] of split.subgoals.entries()) {
      const { atomic, capability } = judgements[i]!
      const dependencies = s.dependsOn.map((d) => results[d]!)
      const output = atomic
        ? offlineAnswer({ kind: 'execute', path, task: s.text, capability, dependencies }).output
        : walk([...path, s.text], depth + 1)
      if (atomic) leaves.push({ path, text: s.text, capability, output })
      results.push({ text: s.text, output })
    }
    const rollup = offlineAnswer({ kind: 'rollup', path, parts: results }).output
    expect(validateOutput('rollup', { output: rollup }).ok).toBe(true)
    return rollup
  }
  return { rollup: walk([goal], 0), leaves }
}

describe('titles: the goal’s own words, whole', () => {
  it.each(GOALS)('%s: every subgoal starts with the whole goal, at every level', (goal) => {
    for (const seed of SEEDS) {
      const { leaves } = plan(goal, seed)
      expect(leaves.length).toBeGreaterThanOrEqual(3)
      for (const leaf of leaves) {
        expect(leaf.text.startsWith(`${goal}: `)).toBe(true)
        expect(leaf.text.length).toBeLessThanOrEqual(MAX_SUBGOAL_TEXT)
      }
    }
  })

  it('splits a goal that names its parts after a colon into those parts', () => {
    const goal = 'Get ready to leave: packing list, phone and money setup, home arrangements'
    const texts = decompose([JAPAN, goal]).subgoals.map((s) => s.text)
    expect(texts).toEqual(
      expect.arrayContaining([
        'Get ready to leave: packing list',
        'Get ready to leave: phone and money setup',
        'Get ready to leave: home arrangements',
      ]),
    )
  })

  it('stays valid for odd goals: one word, no verb, symbols, the longest goal allowed', () => {
    const long = `Improve ${'many things and '.repeat(200)}`.slice(0, MAX_GOAL_TEXT)
    for (const goal of ['Garden', 'A quieter life', '???', long, 'Trip: Japan']) {
      for (const seed of SEEDS) {
        const out = decompose([goal], seed)
        expect(validateOutput('decompose', out).ok, goal).toBe(true)
      }
    }
    expect(decompose([long]).subgoals[0]!.text).toMatch(/^This goal: /)
  })

  it('is a pure function of the task and seed; seeds give decomposers different splits', () => {
    for (const goal of GOALS) {
      expect(decompose([goal], 'peer-x')).toEqual(decompose([goal], 'peer-x'))
      const splits = new Set(SEEDS.map((seed) => JSON.stringify(decompose([goal], seed).subgoals)))
      expect(splits.size).toBe(2)
    }
  })
})

describe('scores and judgements: a fixed rule, said as such', () => {
  it('scores its own splits as acceptable, scorers a little apart, and says what it is', () => {
    for (const goal of GOALS) {
      const subgoals = decompose([goal]).subgoals
      const scores = ['s1', 's2', 's3', 's4'].map((seed) => score([goal], subgoals, seed))
      for (const s of scores) {
        expect(s.score).toBeGreaterThanOrEqual(0.6)
        expect(s.notes).toMatch(/^Offline placeholder score: a fixed rule/)
      }
      const values = scores.map((s) => s.score)
      expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(0.06)
    }
  })

  it('scores a split that leaves the goal’s words out, or repeats itself, below acceptance', () => {
    const vague = ['stuff', 'things', 'misc'].map((text) => ({ text, dependsOn: [] }))
    expect(score([JAPAN], vague).score).toBeLessThan(0.6)
    const twice = [JAPAN, JAPAN, JAPAN].map((text) => ({ text, dependsOn: [] }))
    expect(score([JAPAN], twice).score).toBeLessThan(0.6)
  })

  it('splits the work of a written goal once more; a computation is one program', () => {
    const kinds = (goal: string) => {
      const split = decompose([goal])
      return score([goal], split.subgoals).judgements.map((j) => [j.atomic, j.capability])
    }
    expect(kinds(JAPAN)).toContainEqual([false, 'can_write_text'])
    expect(kinds(PRIMES)).toContainEqual([true, 'can_run_code'])
    expect(kinds(PRIMES).filter(([atomic]) => !atomic)).toEqual([])
    // documentation is writing, whatever it documents
    expect(plan(DOCS).leaves.map((l) => l.capability)).not.toContain('can_run_code')
  })

  it('fits each capability to the room: a lookup nobody offers is written', () => {
    const subgoals = [
      { text: 'Find the current train fares', dependsOn: [] },
      { text: 'Count the stations on the line', dependsOn: [] },
    ]
    const task: ScoreTask = {
      kind: 'score',
      path: [JAPAN],
      subgoals,
      rationale: '',
      depth: 3,
      maxDepth: 3,
    }
    const caps = (room?: Capability[]) =>
      offlineAnswer({ ...task, ...(room ? { roomCapabilities: room } : {}) }).judgements.map(
        (j) => j.capability,
      )
    expect(caps(ALL)).toEqual(['can_query_api', 'can_run_code'])
    expect(caps(undefined)).toEqual(['can_write_text', 'can_run_code'])
    expect(caps(['can_write_text'])).toEqual(['can_write_text', 'can_write_text'])
  })
})

describe('answers: what it is, about its own leaf', () => {
  it('every answer and roll-up says it is the offline placeholder, and names its own leaf', () => {
    for (const goal of GOALS) {
      const { rollup, leaves } = plan(goal)
      expect(rollup.startsWith(`# ${goal}\n\n${PLACEHOLDER_MARK}`)).toBe(true)
      // said once per document: the parts' own placeholder lines are dropped
      expect(rollup.split(PLACEHOLDER_MARK)).toHaveLength(2)
      for (const leaf of leaves) {
        expect(leaf.output.startsWith(PLACEHOLDER)).toBe(true)
        expect(leaf.output).toContain(`## ${leaf.text}\n`)
      }
    }
  })

  it('carries nothing from one goal into another: a plan is the same after any other', () => {
    const alone = plan(PRIMES)
    plan(JAPAN)
    plan(WEDDING)
    expect(plan(PRIMES)).toEqual(alone)
    expect(JSON.stringify(alone)).not.toMatch(/japan|wedding|trip/i)
  })

  it('lists the parts a leaf names and what it builds on, with what a program printed', () => {
    const out = execute('Get ready to leave: packing list, phone setup and home arrangements', {
      dependencies: [
        { text: 'Count the bags', output: 'It ran.\n\n```text\nbags: 3\n```' },
        { text: 'Pick the **date**', output: '## Date\n\n**May 3** it is' },
      ],
    })
    expect(out).toContain(
      '### Parts the task names\n\n- [ ] packing list\n- [ ] phone setup\n- [ ] home arrangements',
    )
    expect(out).toContain('- **Count the bags**: it printed “bags: 3”')
    expect(out).toContain('- **Pick the date**: “May 3 it is”')
  })

  it('says a live-data leaf looked nothing up', () => {
    expect(execute('Find the current train fares', { capability: 'can_query_api' })).toMatch(
      /looked nothing up/,
    )
  })
})

describe('code leaves: the program does what the answer says', () => {
  const run = (program: string) => {
    const lines: string[] = []
    new Function('console', program)({ log: (...a: unknown[]) => lines.push(a.join(' ')) })
    return lines
  }
  const leaf = (task: string, note?: string): ExecuteTask => ({
    kind: 'execute',
    path: [task],
    task,
    capability: 'can_run_code',
    dependencies: [],
    ...(note ? { redo: { note, previous: 'x' } } : {}),
  })

  it.each([
    [
      PRIMES,
      [
        'the first 20 prime numbers: 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71',
        'their sum: 639',
      ],
    ],
    [
      'Compute the sum of the squares from 1 to 1000',
      ['the sum of the squares from 1 to 1000: 333833500'],
    ],
    ['Sort 5, 3, 9 and 1 and give their average', ['average: 4.5', 'sorted: 1, 3, 5, 9']],
  ])('computes what it can plainly: %s', (task, printed) => {
    expect(run(offlineProgram(leaf(task)))).toEqual(printed)
  })

  it('otherwise runs a program about the task’s words, and the answer says so', () => {
    const task = 'Build a todo app with a REST API'
    expect(run(offlineProgram(leaf(task)))[0]).toBe(`task: ${task}`)
    const out = offlineAnswer(leaf(task)).output
    expect(out).toContain('the offline model has no program for the task itself')
    expect(out).toContain('Not run: this call had no sandbox')
  })

  it('a redo’s note changes what it names: only the first 10', () => {
    const out = offlineAnswer(leaf(PRIMES, 'Only the first 10 please')).output
    expect(out).toContain('**Redone after the author’s note:** “Only the first 10 please”')
    expect(out).toContain('The program follows what the note names.')
    expect(run(offlineProgram(leaf(PRIMES, 'Only the first 10 please')))[1]).toBe('their sum: 129')
  })
})

describe('the code model: it calls the tools a call offers that it has a use for', () => {
  const task: ExecuteTask = {
    kind: 'execute',
    path: [PRIMES],
    task: PRIMES,
    capability: 'can_run_code',
    dependencies: [],
  }
  const tool = (name: string) => ({ type: 'function' as const, name, inputSchema: {} })
  const user = { role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }
  const generate = (tools: string[], prompt: unknown[] = [user], none = false) =>
    offlineCodeModel(task, OFFLINE_MODEL).doGenerate({
      prompt: prompt as never,
      tools: tools.map(tool),
      ...(none ? { toolChoice: { type: 'none' as const } } : {}),
    })
  const text = (r: Awaited<ReturnType<typeof generate>>) =>
    r.content[0]?.type === 'text'
      ? (JSON.parse(r.content[0].text) as { output: string }).output
      : ''

  it('calls run_javascript with its program, then reports exactly what came back', async () => {
    const first = await generate(['read_file', 'run_javascript'])
    expect(first.finishReason.unified).toBe('tool-calls')
    const call = first.content[0]!
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'run_javascript' })
    const input = JSON.parse(call.type === 'tool-call' ? call.input : '{}') as { code: string }
    expect(input.code).toBe(offlineProgram(task))
    const printed = 'their sum: 639\n```not a fence end'
    const second = await generate(
      ['read_file', 'run_javascript'],
      [
        user,
        { role: 'assistant', content: [{ ...call, input }] },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: call.type === 'tool-call' ? call.toolCallId : '',
              toolName: 'run_javascript',
              output: { type: 'json', value: { exit: 0, stdout: printed } },
            },
          ],
        },
      ],
    )
    expect(second.finishReason.unified).toBe('stop')
    const output = text(second)
    expect(output).toContain(`### What ran\n\n\`\`\`js\n${input.code}\n\`\`\``)
    expect(output).toContain(`\`\`\`\`text\n${printed.trim()}\n\`\`\`\``)
  })

  it('calls no tool it has no use for, nor any when told not to: the program, not run', async () => {
    for (const r of [
      await generate(['read_file']),
      await generate(['run_javascript'], [user], true),
    ]) {
      expect(r.finishReason.unified).toBe('stop')
      expect(text(r)).toContain('Not run: this call had no sandbox.')
    }
  })
})

describe('a veto’s note is visibly taken into the next split', () => {
  const first = decompose([JAPAN]).subgoals
  const vetoed = (note: string) => ({ vetoed: [{ note, subgoals: first.map((s) => s.text) }] })
  const texts = (out: { subgoals: SubgoalDraft[] }) => out.subgoals.map((s) => s.text)

  it.each(['', 'Fewer steps please', 'Add a week in Korea'])('note “%s”: a new split', (note) => {
    const out = decompose([JAPAN], 'peer-a', vetoed(note))
    expect(validateOutput('decompose', out).ok).toBe(true)
    expect(texts(out)).not.toEqual(texts({ subgoals: first }))
    expect(out.rationale).toMatch(/^Reworked after the author's veto/)
    if (note) expect(out.rationale).toContain(`(their note: “${note}”)`)
  })

  it('fewer steps when asked; otherwise the note is the first step the others wait for', () => {
    const fewer = decompose([JAPAN], 'peer-a', vetoed('Fewer steps please'))
    expect(fewer.subgoals.length).toBeLessThan(first.length)
    expect(fewer.rationale).toContain(`fewer steps, as the note asks: 2 instead of ${first.length}`)
    const korea = decompose([JAPAN], 'peer-a', vetoed('Add a week in Korea'))
    expect(korea.subgoals[0]).toEqual({
      text: "Follow the author's note: “Add a week in Korea”",
      dependsOn: [],
    })
    for (const s of korea.subgoals.slice(1)) expect(s.dependsOn).toContain(0)
  })

  it('never proposes a vetoed split again, whatever the notes', () => {
    const seen: { note: string; subgoals: string[] }[] = []
    for (const note of ['Fewer steps', 'Fewer steps', '', 'Fewer steps']) {
      const out = decompose([JAPAN], 'peer-a', seen.length ? { vetoed: [...seen] } : {})
      expect(seen.map((v) => v.subgoals)).not.toContainEqual(texts(out))
      seen.push({ note, subgoals: texts(out) })
    }
  })
})

describe('a redo’s note is visibly taken into the next answer', () => {
  const task = `${JAPAN}: check the result against the goal`
  const previous = execute(task)

  it('quotes the note and carries its points in as a checklist, saying it cannot do more', () => {
    const out = execute(task, { redo: { note: 'Cite official sources; use euros', previous } })
    expect(out).toContain('**Redone after the author’s note:** “Cite official sources; use euros”')
    expect(out).toContain('- [ ] Cite official sources\n- [ ] use euros')
    expect(out).toContain('cannot rewrite content by a note')
  })

  it('is shorter when the note asks for it', () => {
    const out = execute(task, { redo: { note: 'Make it shorter', previous } })
    expect(out).toContain('Shortened, as the note asks')
    expect(out.length).toBeLessThan(previous.length + 120)
    expect(out).not.toContain('A real model writes the text itself here')
  })
})

describe('the offline provider', () => {
  it('is labelled offline, estimates tokens, and needs no network', async () => {
    const out = await runLlmTask(
      { kind: 'decompose', path: [WEDDING], depth: 0, maxDepth: 3 },
      createOfflineProvider({ latencyMs: 0 }),
      { seed: 'p1' },
    )
    expect(out.ok).toBe(true)
    expect(out.usage).toMatchObject({ provider: 'offline', model: OFFLINE_MODEL, offline: true })
    expect(out.usage.inputTokens).toBeGreaterThan(50)
    expect(out.usage.outputTokens).toBeGreaterThan(20)
  })

  it('sleeps its simulated latency and stops on abort', async () => {
    const task: LlmTask = { kind: 'rollup', path: ['x'], parts: [] }
    const started = Date.now()
    await runLlmTask(task, createOfflineProvider({ latencyMs: 60 }))
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
    const controller = new AbortController()
    const pending = runLlmTask(task, createOfflineProvider({ latencyMs: 10_000 }), {
      signal: controller.signal,
    })
    controller.abort()
    await expect(pending).rejects.toBeDefined()
  })

  it('answers from prompts alone, with earlier text verbatim (a code block with < and ")', async () => {
    const earlier = '```js\nfor (let i = 3; i <= n; i++) {\n  console.log("count:", i)\n}\n```'
    const task: ExecuteTask = {
      kind: 'execute',
      path: ['Write a counter'],
      task: 'Explain the loop',
      capability: 'can_write_text',
      dependencies: [{ text: 'Write the loop', output: `The loop:\n\n${earlier}` }],
      redo: { note: 'Keep i <= n and "count:"', previous: earlier },
    }
    const { system, prompt } = buildPrompts(task)
    const res = await createOfflineProvider({ latencyMs: 0 }).generate({
      kind: 'execute',
      system,
      prompt,
      jsonSchema: {},
      schemaName: 'deliverable',
      seed: 's',
    })
    expect(res.json).toEqual({ ok: true, value: offlineAnswer(task, 's') })
    const output = (res.json.ok && (res.json.value as { output: string }).output) || ''
    expect(output).toContain('“Keep i <= n and "count:"”')
    expect(output).not.toMatch(/&(lt|quot|amp);/)
  })
})
