import { Marked, type Token, type Tokens } from 'marked'
import { describe, expect, it } from 'vitest'
import type { CodeStep, SearchStep, Step } from '../protocol/steps'
import { exportJson, exportMarkdown, fenceFor, linkTarget } from './export'
import { noLeaves } from './goal-status'
import { zeroRoleUsage, type GoalView, type PlanTree, type SlotView, type TaskView } from './tree'

const EXECUTOR = '12D3KooWExecutorxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'

function task(id: string, output: string | null, steps: Step[] | null = null): TaskView {
  return {
    id,
    status: output ? 'done' : 'open',
    epoch: 0,
    holder: output ? EXECUTOR : null,
    claimedAt: output ? 1_700_000_000_000 : null,
    output,
    resultBy: output ? EXECUTOR : null,
    steps,
    failures: [],
    gap: null,
    why: null,
  }
}

function slot(index: number, text: string, extra: Partial<SlotView>): SlotView {
  return {
    index,
    text,
    dependsOn: [],
    status: 'done',
    nodeId: `node-${text}`,
    atomic: true,
    capped: false,
    capability: 'can_write_text',
    reason: null,
    tool: null,
    capabilityGap: null,
    noWorker: null,
    toolGap: null,
    blocked: false,
    why: null,
    leaf: null,
    superseded: [],
    redosLeft: 3,
    goal: null,
    ...extra,
  }
}

function goal(id: string, text: string, depth: number, slots: SlotView[]): GoalView {
  return {
    id,
    text,
    createdAt: depth === 0 ? 1_700_000_000_000 : null,
    depth,
    status: 'done',
    phase: 'complete',
    leaves: { ...noLeaves(), total: slots.length, done: slots.length },
    cancelled: false,
    authorRemoved: false,
    createdBy: EXECUTOR,
    createdByMember: null,
    proposals: [],
    accepted: { proposal: `${id}-p`, basis: 'quorum', decidedBy: EXECUTOR, score: 0.8 },
    slots,
    rollup: task(`${id}-rollup`, 'The whole plan.'),
    paused: false,
    approvalMode: 'none',
    approval: 'none',
    vetoes: [],
    retired: [],
    vetoesLeft: 3,
    supersededRollup: null,
    outcome: 'complete',
    failedParts: 0,
    usage: zeroRoleUsage(),
    missingCapabilities: [],
    missingTools: [],
  }
}

// code whose text holds fences of its own: a naive ``` block would end early and the rest read as Markdown
const TRICKY_CODE =
  'const s = "```\\n````"\nconsole.log(s.length) // <b>not html</b>\n````\n# not a heading'

const codeStep: CodeStep = {
  type: 'code',
  language: 'javascript',
  code: TRICKY_CODE,
  stdout: '9\n```\n[click](javascript:alert(1))\n',
  stderr: 'warning: `x` unused',
  exit: 1,
  error: 'Time limit of 5000 ms reached',
  durationMs: 5003,
  timedOut: true,
}

const searchStep: SearchStep = {
  type: 'search',
  query: 'JR pass price [2026] *now*',
  sources: [
    {
      title: 'Rail pass prices](javascript:alert(1)) [x <b>',
      url: 'https://example.com/a_(b)?q=1 2',
    },
    { title: '', url: 'http://example.org/' },
    // not valid in a record (the schema refuses it), but an export must not link it either
    { title: 'evil', url: 'javascript:alert(1)' },
  ],
}

function treeWithSteps(): PlanTree {
  const nested = goal('child', 'Work out the costs', 1, [
    slot(0, 'Sum the fares', {
      capability: 'can_run_code',
      leaf: task('exec-sum', 'The fares come to 9.', [codeStep]),
    }),
    slot(1, 'Look up the pass', {
      capability: 'can_query_api',
      leaf: task('exec-pass', 'It costs about 50,000 yen.', [searchStep, { type: 'knowledge' }]),
    }),
  ])
  const root = goal('root', 'Plan a trip', 0, [
    slot(0, 'Write the packing list', { leaf: task('exec-pack', 'Socks.') }),
    slot(1, 'Work out the costs', { atomic: false, capability: null, goal: nested }),
  ])
  return {
    goals: [root],
    over: true,
    progress: { leaves: 3, leavesDone: 3, leavesFailed: 0, goals: 2 },
    roomUsage: zeroRoleUsage(),
  }
}

function tokens(markdown: string): Token[] {
  const all: Token[] = []
  const walk = (list: Token[]) => {
    for (const token of list) {
      all.push(token)
      const children = (token as { tokens?: Token[]; items?: Token[] }).tokens
      const items = (token as { items?: Token[] }).items
      if (children) walk(children)
      if (items) walk(items)
    }
  }
  walk(new Marked({ gfm: true }).lexer(markdown))
  return all
}

describe('plan export with steps', () => {
  it('JSON holds each leaf’s steps exactly as the result record has them', () => {
    const parsed = JSON.parse(exportJson(treeWithSteps(), 'root')) as { goal: GoalView }
    const costs = parsed.goal.slots[1]!.goal!
    expect(costs.slots[0]!.leaf!.steps).toEqual([codeStep])
    expect(costs.slots[1]!.leaf!.steps).toEqual([searchStep, { type: 'knowledge' }])
    expect(parsed.goal.slots[0]!.leaf!.steps).toBeNull()
  })

  it('Markdown shows code and output verbatim in fences nothing inside can close', () => {
    const markdown = exportMarkdown(treeWithSteps(), 'root')
    const blocks = tokens(markdown).filter((t): t is Tokens.Code => t.type === 'code')
    expect(blocks.map((b) => [b.lang, b.text])).toEqual([
      ['javascript', TRICKY_CODE],
      ['text', codeStep.stdout.trimEnd()],
      ['text', codeStep.stderr],
    ])
    // nothing from the code or output became a heading or a link
    const headings = tokens(markdown).filter((t): t is Tokens.Heading => t.type === 'heading')
    expect(headings.map((h) => h.text)).toEqual([
      'Plan a trip',
      'How the swarm split it',
      'What the executors ran and looked up',
      '2.1. Sum the fares',
      '2.2. Look up the pass',
    ])
    expect(markdown).toContain('timed out, 5003 ms')
    expect(markdown).toContain('Error: Time limit of 5000 ms reached')
  })

  it('Markdown lists the sources as http(s) links and never links anything else', () => {
    const markdown = exportMarkdown(treeWithSteps(), 'root')
    const links = tokens(markdown).filter((t): t is Tokens.Link => t.type === 'link')
    // what a reader sees of each link: its title as typed, no markup in it
    const seen = (link: Tokens.Link) =>
      link.tokens.map((t) => (t.type === 'html' ? '<html>' : (t as Tokens.Text).text)).join('')
    expect(links.map((l) => [seen(l), l.href])).toEqual([
      ['Rail pass prices](javascript:alert(1)) [x <b>', 'https://example.com/a_%28b%29?q=1%202'],
      ['http://example.org/', 'http://example.org/'],
    ])
    expect(markdown).toContain('JR pass price \\[2026\\] \\*now\\*')
    expect(markdown).toContain("Answered from the model's knowledge, not checked live.")
  })

  it('a plan whose executors used no tool has no steps section', () => {
    const tree = treeWithSteps()
    tree.goals[0]!.slots[1]!.goal!.slots.forEach((s) => (s.leaf!.steps = null))
    expect(exportMarkdown(tree, 'root')).not.toContain('What the executors ran')
  })
})

describe('fences and links', () => {
  it('a fence is longer than any run of backticks in its text', () => {
    expect(fenceFor('plain')).toBe('```')
    expect(fenceFor('a ``` b')).toBe('````')
    expect(fenceFor('`````')).toBe('``````')
  })

  it('only http(s) URLs are link targets', () => {
    expect(linkTarget('https://a.example/x')).toBe('https://a.example/x')
    expect(linkTarget('HTTP://a.example/(x)')).toBe('HTTP://a.example/%28x%29')
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      '//a.example',
    ]) {
      expect(linkTarget(bad)).toBeNull()
    }
  })
})
