/**
 * Code deliverables (can_run_code: the executor writes code, it does not
 * run it). A short explanation, a TypeScript sketch shaped by the leaf
 * (tests, an HTTP API, a data model, CI config, or a plain module), and how
 * to use it. Names come from the leaf's words so every sketch is specific.
 */
import { CI_WORKFLOW } from './deliverables-runnable'
import type { Leaf } from './leaf'
import { camelCase, capitalise, lowerFirst, objectOf } from './text'

const fence = (lang: string, code: string): string => `\`\`\`${lang}\n${code}\n\`\`\``

function testsSketch(name: string): string {
  return fence(
    'ts',
    [
      "import { describe, expect, it } from 'vitest'",
      `import { ${name} } from './${name}'`,
      '',
      `describe('${name}', () => {`,
      "  it('handles the normal case', () => {",
      `    expect(${name}({ items: ['a', 'b'] })).toEqual({ ok: true, count: 2 })`,
      '  })',
      '',
      "  it('rejects empty input with a clear error', () => {",
      `    expect(${name}({ items: [] })).toEqual({ ok: false, error: 'no items' })`,
      '  })',
      '})',
    ].join('\n'),
  )
}

function apiSketch(name: string, resource: string): string {
  return fence(
    'ts',
    [
      `// ${capitalise(resource)} API: a minimal fetch-style handler (works in Node 18+, Deno, Workers).`,
      `interface ${capitalise(name)}Item { id: string; title: string; createdAt: string }`,
      '',
      `const items = new Map<string, ${capitalise(name)}Item>()`,
      '',
      'export async function handle(request: Request): Promise<Response> {',
      '  const url = new URL(request.url)',
      "  if (request.method === 'GET' && url.pathname === '/items') {",
      '    return Response.json([...items.values()])',
      '  }',
      "  if (request.method === 'POST' && url.pathname === '/items') {",
      '    const body = (await request.json()) as { title?: unknown }',
      "    if (typeof body.title !== 'string' || body.title.trim() === '') {",
      "      return Response.json({ error: 'title is required' }, { status: 400 })",
      '    }',
      '    const item = { id: crypto.randomUUID(), title: body.title.trim(), createdAt: new Date().toISOString() }',
      '    items.set(item.id, item)',
      '    return Response.json(item, { status: 201 })',
      '  }',
      "  return new Response('not found', { status: 404 })",
      '}',
    ].join('\n'),
  )
}

function modelSketch(name: string): string {
  const type = capitalise(name)
  return fence(
    'ts',
    [
      `export interface User { id: string; email: string; name: string }`,
      '',
      `export interface ${type} {`,
      '  id: string',
      '  ownerId: User["id"]',
      '  title: string',
      "  status: 'draft' | 'active' | 'done'",
      '  createdAt: Date',
      '  updatedAt: Date',
      '}',
      '',
      `/** Storage boundary: swap the implementation (memory, SQLite, Postgres) without touching callers. */`,
      `export interface ${type}Store {`,
      `  get(id: string): Promise<${type} | undefined>`,
      `  list(ownerId: string): Promise<${type}[]>`,
      `  put(item: ${type}): Promise<void>`,
      '}',
    ].join('\n'),
  )
}

function ciSketch(): string {
  return fence('yaml', CI_WORKFLOW)
}

function moduleSketch(name: string, obj: string): string {
  return fence(
    'ts',
    [
      `/** ${capitalise(obj)}. Pure and synchronous so it is easy to test. */`,
      `export interface ${capitalise(name)}Input { items: string[]; options?: { limit?: number } }`,
      `export type ${capitalise(name)}Result = { ok: true; count: number } | { ok: false; error: string }`,
      '',
      `export function ${name}(input: ${capitalise(name)}Input): ${capitalise(name)}Result {`,
      "  if (input.items.length === 0) return { ok: false, error: 'no items' }",
      '  const limit = input.options?.limit ?? Infinity',
      "  const kept = input.items.filter((item) => item.trim() !== '').slice(0, limit)",
      '  return { ok: true, count: kept.length }',
      '}',
    ].join('\n'),
  )
}

export function codeSketch(leaf: Leaf): string {
  const name = camelCase(
    leaf.task.replace(/^(write|implement|build|create|add|set up|develop|code)\s+/i, ''),
    3,
  )
  const obj = lowerFirst(objectOf(leaf.task.split(':')[0] ?? leaf.task, 100))
  const t = leaf.task
  let code: string
  let usage: string
  let approach = `a small, typed unit for ${obj}, with input validation and no hidden state`
  if (/\btests?\b/i.test(t)) {
    approach = `tests that pin down the behaviour of ${obj.replace(/^(unit |automated )?tests? (for|of) /, '')}: the normal case and the error case first`
    code = testsSketch(name)
    usage =
      'Run with `npx vitest run`. Add one test per bug found, named after the behaviour it pins down.'
  } else if (/\b(ci|continuous integration|deploy\w*|pipeline)\b/i.test(t)) {
    approach = 'a pipeline that lints, tests and builds on every push, so main is always releasable'
    code = ciSketch()
    usage =
      'Save as `.github/workflows/ci.yml`. Add a deploy job that runs only on the main branch once this is green.'
  } else if (/\b(data model|schema|database|architecture)\b/i.test(t)) {
    approach = `plain TypeScript types for ${obj} and a storage interface, so the database can change later`
    code = modelSketch(name)
    usage =
      'Start with the in-memory store; the interface keeps the switch to a real database a one-file change.'
  } else if (/\b(api|endpoints?|backend|server)\b/i.test(t)) {
    approach = `a small HTTP API for ${obj} with validation at the boundary`
    code = apiSketch(name, obj)
    usage =
      'Wire `handle` into your server or runtime; add authentication before exposing it publicly.'
  } else {
    code = moduleSketch(name, obj)
    usage = `Import \`${name}\` where ${obj} is needed; keep I/O at the edges so the core stays testable.`
  }
  return [
    `## ${leaf.task}`,
    '',
    `Approach: ${approach}.`,
    '',
    code,
    '',
    `**Use:** ${usage}`,
    '',
    '_Written, not run: review and test before relying on it._',
  ].join('\n')
}
