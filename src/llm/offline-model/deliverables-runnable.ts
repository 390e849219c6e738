/**
 * Code the offline model can run (issue 43): for a can_run_code leaf on an
 * executor with a sandbox, the deliverable's code is a plain JavaScript
 * program with its own checks, and that very program is what runs. So
 * "Checked by running it" is literally true of the code shown, and the
 * output quoted is what the checks printed. A CI workflow cannot run here:
 * its program checks the workflow's structure and says so.
 */
import type { Leaf } from './leaf'
import { camelCase, capitalise, lowerFirst, objectOf } from './text'

export interface Runnable {
  /** one sentence: what the code does */
  approach: string
  /** Markdown of the delivered code */
  shown: string
  /** the JavaScript that runs in the sandbox */
  program: string
  /** what the run checks, for the "Checked by running it" section */
  checks: string
  usage: string
}

const fence = (lang: string, code: string): string => `\`\`\`${lang}\n${code}\n\`\`\``

/** The self-check every program ends with: one line per case, then a count. */
const CHECK_LOOP = [
  'let passed = 0',
  'for (const [label, got, want] of checks) {',
  '  const ok = JSON.stringify(got) === JSON.stringify(want)',
  '  if (ok) passed++',
  "  console.log(`${ok ? 'pass' : 'FAIL'}: ${label} -> ${JSON.stringify(got)}`)",
  '}',
  'console.log(`${passed}/${checks.length} checks passed`)',
]

function moduleProgram(name: string, obj: string): string {
  return [
    `// ${capitalise(obj)}: pure and synchronous, so it is easy to test.`,
    `function ${name}(input) {`,
    "  if (!Array.isArray(input.items) || input.items.length === 0) return { ok: false, error: 'no items' }",
    '  const limit = input.limit ?? Infinity',
    "  const kept = input.items.filter((item) => String(item).trim() !== '').slice(0, limit)",
    '  return { ok: true, count: kept.length, items: kept }',
    '}',
    '',
    'const checks = [',
    `  ['two items', ${name}({ items: ['a', 'b'] }), { ok: true, count: 2, items: ['a', 'b'] }],`,
    `  ['blank items dropped', ${name}({ items: ['a', ' ', 'c'] }).count, 2],`,
    `  ['limit of 1', ${name}({ items: ['a', 'b', 'c'], limit: 1 }).count, 1],`,
    `  ['no items', ${name}({ items: [] }), { ok: false, error: 'no items' }],`,
    ']',
    ...CHECK_LOOP,
  ].join('\n')
}

function apiProgram(name: string, resource: string): string {
  return [
    `// ${capitalise(resource)}: a request handler on plain objects, validation at the boundary.`,
    'const items = new Map()',
    'let nextId = 1',
    `function ${name}(request) {`,
    "  if (request.method === 'GET' && request.path === '/items') return { status: 200, body: [...items.values()] }",
    "  if (request.method === 'POST' && request.path === '/items') {",
    '    const title = request.body?.title',
    "    if (typeof title !== 'string' || title.trim() === '') return { status: 400, body: { error: 'title is required' } }",
    '    const item = { id: String(nextId++), title: title.trim() }',
    '    items.set(item.id, item)',
    '    return { status: 201, body: item }',
    '  }',
    "  return { status: 404, body: { error: 'not found' } }",
    '}',
    '',
    'const checks = [',
    `  ['create', ${name}({ method: 'POST', path: '/items', body: { title: ' First ' } }), { status: 201, body: { id: '1', title: 'First' } }],`,
    `  ['reject a blank title', ${name}({ method: 'POST', path: '/items', body: { title: '' } }).status, 400],`,
    `  ['list', ${name}({ method: 'GET', path: '/items' }).body.length, 1],`,
    `  ['unknown path', ${name}({ method: 'GET', path: '/nope' }).status, 404],`,
    ']',
    ...CHECK_LOOP,
  ].join('\n')
}

function modelProgram(name: string): string {
  const type = capitalise(name)
  return [
    `// ${type} records: one constructor that validates, one in-memory store behind a small interface.`,
    "const STATUSES = ['draft', 'active', 'done']",
    `function make${type}(fields) {`,
    "  if (typeof fields.title !== 'string' || fields.title.trim() === '') throw new Error('title is required')",
    "  const status = fields.status ?? 'draft'",
    '  if (!STATUSES.includes(status)) throw new Error(`unknown status ${status}`)',
    '  return { id: fields.id, ownerId: fields.ownerId, title: fields.title.trim(), status }',
    '}',
    'function memoryStore() {',
    '  const rows = new Map()',
    '  return {',
    '    put: (item) => rows.set(item.id, item),',
    '    get: (id) => rows.get(id),',
    '    list: (ownerId) => [...rows.values()].filter((r) => r.ownerId === ownerId),',
    '  }',
    '}',
    'const attempt = (f) => { try { return f() } catch (e) { return e.message } }',
    '',
    'const store = memoryStore()',
    `store.put(make${type}({ id: '1', ownerId: 'u1', title: 'First' }))`,
    'const checks = [',
    `  ['stored and read back', store.get('1').status, 'draft'],`,
    `  ['listed by owner', store.list('u1').length, 1],`,
    `  ['blank title refused', attempt(() => make${type}({ id: '2', title: ' ' })), 'title is required'],`,
    `  ['unknown status refused', attempt(() => make${type}({ id: '3', title: 'x', status: 'lost' })), 'unknown status lost'],`,
    ']',
    ...CHECK_LOOP,
  ].join('\n')
}

/** The CI workflow both the written and the runnable code answers show (deliverables-code.ts). */
export const CI_WORKFLOW = [
  'name: ci',
  'on: [push, pull_request]',
  'jobs:',
  '  test:',
  '    runs-on: ubuntu-latest',
  '    steps:',
  '      - uses: actions/checkout@v4',
  '      - uses: actions/setup-node@v4',
  '        with: { node-version: 20, cache: npm }',
  '      - run: npm ci',
  '      - run: npm run lint',
  '      - run: npm test',
  '      - run: npm run build',
].join('\n')

function ciProgram(): string {
  return [
    '// Checks the structure of the workflow below; the workflow itself runs on the CI service.',
    `const workflow = ${JSON.stringify(CI_WORKFLOW)}`,
    "const lines = workflow.split('\\n')",
    "const runs = lines.filter((l) => l.trim().startsWith('- run:')).map((l) => l.split('- run:')[1].trim())",
    'const checks = [',
    "  ['runs on push and pull requests', lines.includes('on: [push, pull_request]'), true],",
    "  ['installs from the lockfile', runs.includes('npm ci'), true],",
    "  ['tests before building', runs.indexOf('npm test') < runs.indexOf('npm run build'), true],",
    ']',
    ...CHECK_LOOP,
  ].join('\n')
}

export function runnableSketch(leaf: Leaf): Runnable {
  const t = leaf.task
  const name = camelCase(
    t.replace(/^(write|implement|build|create|add|set up|develop|code)\s+/i, ''),
    3,
  )
  const obj = lowerFirst(objectOf(t.split(':')[0] ?? t, 100))
  if (/\b(ci|continuous integration|deploy\w*|pipeline)\b/i.test(t)) {
    return {
      approach:
        'a pipeline that lints, tests and builds on every push, so main is always releasable',
      shown: fence('yaml', CI_WORKFLOW),
      program: ciProgram(),
      checks:
        'A program checked the workflow above in this executor’s sandbox (the workflow itself runs on the CI service, not here). It printed:',
      usage:
        'Save as `.github/workflows/ci.yml`. Add a deploy job that runs only on the main branch once this is green.',
    }
  }
  let approach = `a small unit for ${obj}, with input validation and no hidden state`
  let program: string
  let usage = `Call \`${name}\` where ${obj} is needed; keep I/O at the edges so it stays testable.`
  if (/\b(data model|schema|database|architecture)\b/i.test(t)) {
    approach = `records for ${obj} that validate themselves, behind a storage interface the database can replace`
    program = modelProgram(name)
    usage = 'Swap `memoryStore` for a real database later; callers only see put, get and list.'
  } else if (/\b(api|endpoints?|backend|server)\b/i.test(t)) {
    approach = `a small HTTP API for ${obj} with validation at the boundary`
    program = apiProgram(name, obj)
    usage = `Adapt \`${name}\` to your server's request type; add authentication before exposing it.`
  } else {
    if (/\btests?\b/i.test(t)) approach = `the behaviour of ${obj} pinned down by checks that run`
    program = moduleProgram(name, obj)
  }
  return {
    approach,
    shown: fence('js', program),
    program,
    checks: 'The code above, checks included, ran in this executor’s sandbox and printed:',
    usage,
  }
}
