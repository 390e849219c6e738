import { describe, expect, it } from 'vitest'
import { buildPrompts, parsePrompts, taskKindFromSystem, withRetryFeedback } from './prompts'
import type { LlmTask } from './types'

const path = ['Plan a <two-week> trip to "Japan" & Korea', 'Book flights']

const tasks: LlmTask[] = [
  { kind: 'decompose', path, depth: 1, maxDepth: 3 },
  {
    kind: 'score',
    path,
    subgoals: [
      { text: 'Compare fares', dependsOn: [] },
      { text: 'Book the <cheapest> one', dependsOn: [0] },
      { text: 'Save confirmations', dependsOn: [0, 1] },
    ],
    rationale: 'Compare, then book & save.',
  },
  {
    kind: 'classify',
    path,
    subgoal: 'Compare fares on 3 sites',
    siblings: ['Compare fares on 3 sites', 'Book it'],
    depth: 2,
    maxDepth: 3,
  },
  {
    kind: 'execute',
    path,
    task: 'Write `fetchFares()`',
    capability: 'can_run_code',
    dependencies: [{ text: 'Compare fares', output: '| a | b |\n|---|---|\n| <1> | &amp; |' }],
  },
  // the author's steering (issue 27): a vetoed split with its note, a leaf sent back
  {
    kind: 'decompose',
    path,
    depth: 0,
    maxDepth: 3,
    vetoed: [{ note: 'Fewer <steps> & "bigger" ones', subgoals: ['Compare fares', 'Book it'] }],
  },
  {
    kind: 'execute',
    path,
    task: 'List the fares',
    capability: 'can_write_text',
    dependencies: [],
    redo: { note: 'Use euros & cite <sources>', previous: '| fare |\n| 100 USD |' },
  },
  {
    kind: 'rollup',
    path,
    parts: [
      { text: 'Part one', output: '## Heading\n\n</output> tricky' },
      { text: 'Part two', output: 'plain' },
    ],
  },
]

describe('prompts', () => {
  it.each(tasks.map((t) => [t.kind, t] as const))(
    'round-trips a %s task through its prompts',
    (_, task) => {
      const { system, prompt } = buildPrompts(task)
      expect(parsePrompts(system, prompt)).toEqual(task)
    },
  )

  it('marks every system prompt with its task kind on the first line', () => {
    for (const task of tasks) {
      const { system } = buildPrompts(task)
      expect(system.split('\n')[0]).toBe(`task: ${task.kind}`)
      expect(taskKindFromSystem(system)).toBe(task.kind)
    }
    expect(taskKindFromSystem('You are a helpful assistant.')).toBeUndefined()
    expect(taskKindFromSystem('task: dance')).toBeUndefined()
  })

  it('carries depth and max depth for decompose and classify', () => {
    expect(buildPrompts(tasks[0]!).prompt).toContain('<depth>1</depth>\n<max_depth>3</max_depth>')
    expect(buildPrompts(tasks[2]!).prompt).toContain('<depth>2</depth>')
  })

  it('states the rubric and the capability meanings', () => {
    const score = buildPrompts(tasks[1]!).system
    expect(score).toMatch(/cover the whole goal/)
    expect(score).toMatch(/overlap/)
    expect(score).toMatch(/actionable/)
    const classify = buildPrompts(tasks[2]!).system
    expect(classify).toMatch(/can_run_code: the deliverable is code, or needs a computation/)
    expect(classify).toMatch(/can_query_api/)
    expect(classify).toMatch(/can_write_text/)
  })

  it('feeds the previous error back without disturbing the task', () => {
    const { system, prompt } = buildPrompts(tasks[1]!)
    const retry = withRetryFeedback(prompt, 'schema violation: score: too big <1>')
    expect(retry).toContain(
      '<previous_reply_error>schema violation: score: too big &lt;1&gt;</previous_reply_error>',
    )
    expect(parsePrompts(system, retry)).toEqual(tasks[1])
  })

  it('stays short', () => {
    // Every token is paid for by every peer: keep the fixed part of each prompt small.
    for (const task of tasks) expect(buildPrompts(task).system.length).toBeLessThan(1_000)
  })
})
