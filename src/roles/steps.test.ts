/** Steps fitted to the protocol before the executor signs its result. */
import { describe, expect, it } from 'vitest'
import { decodeRecord, encodeRecord, MAX_WIRE_BYTES } from '../protocol/codec'
import { makeSigner } from '../protocol/fixtures.test-support'
import { MAX_OUTPUT } from '../protocol/limits'
import { stamp, type ResultRecord } from '../protocol/records'
import {
  MAX_STEP_CODE,
  MAX_STEP_ERROR,
  MAX_STEP_STDERR,
  MAX_STEP_STDOUT,
  MAX_STEPS,
  type CodeStep,
  type Step,
} from '../protocol/steps'
import { fitSteps } from './steps'

const usage = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  inputTokens: 1,
  outputTokens: 1,
  offline: false,
}
const ID = 'a'.repeat(32)

/** The costliest text canonical JSON can hold: control characters, 6 bytes each (\u0001). */
const worst = (n: number) => '\u0001'.repeat(n)

function bigCode(n: number): CodeStep {
  return {
    type: 'code',
    language: 'javascript',
    code: `/* run ${n} */${worst(MAX_STEP_CODE - 20)}`,
    stdout: worst(MAX_STEP_STDOUT),
    stderr: worst(MAX_STEP_STDERR),
    exit: 1,
    error: worst(MAX_STEP_ERROR),
    durationMs: 5_000,
    timedOut: true,
  }
}

describe('fitSteps', () => {
  it('keeps ordinary steps as they are', () => {
    const steps: Step[] = [
      { type: 'search', query: 'fares', sources: [{ title: 'A', url: 'https://a.example/' }] },
      {
        ...bigCode(1),
        code: 'console.log(1)',
        stdout: '1\n',
        stderr: '',
        error: '',
        exit: 0,
        timedOut: false,
      },
    ]
    const draft = { kind: 'result', task: ID, epoch: 0, output: 'done', usage }
    expect(fitSteps(draft, steps)).toEqual(steps)
  })

  it('drops invalid steps and keeps at most MAX_STEPS, the oldest code runs going first', () => {
    const runs = Array.from({ length: MAX_STEPS + 2 }, (_, i) => ({
      ...bigCode(i),
      code: `console.log(${i})`,
      stdout: '',
      stderr: '',
      error: '',
    }))
    const bad = { type: 'search', query: '', sources: [] } as Step
    const fitted = fitSteps({ output: 'x' }, [bad, ...runs])
    expect(fitted).toHaveLength(MAX_STEPS)
    expect(fitted.map((s) => (s as CodeStep).code)).toEqual(runs.slice(2).map((r) => r.code))
  })

  it('fits a maximal result under the record limit, dropping the oldest code runs first', async () => {
    const signer = await makeSigner()
    // the largest output a result may have, in 3-byte characters, and eight runs as large as allowed
    const output = '€'.repeat(MAX_OUTPUT)
    const steps: Step[] = [
      ...Array.from({ length: MAX_STEPS - 1 }, (_, i) => bigCode(i)),
      {
        type: 'search',
        query: worst(400),
        sources: [{ title: worst(300), url: 'https://a.example/' }],
      },
    ]
    const draft = { kind: 'result' as const, task: ID, epoch: 3, output, usage }
    const fitted = fitSteps(draft, steps)
    expect(fitted.length).toBeGreaterThan(0)
    expect(fitted.length).toBeLessThan(steps.length)
    // the newest run (the one the answer quotes) and the search outlive the older runs
    expect(fitted.at(-1)).toEqual(steps.at(-1))
    const runs = steps.filter((s) => s.type === 'code')
    const keptRuns = fitted.length - 1
    expect(fitted.filter((s) => s.type === 'code')).toEqual(runs.slice(runs.length - keptRuns))
    const record = stamp<ResultRecord>({
      ...draft,
      room: 'lobby',
      from: signer.peerId,
      steps: fitted,
    })
    const bytes = await encodeRecord(record, signer)
    expect(bytes.length).toBeLessThanOrEqual(MAX_WIRE_BYTES)
    const decoded = await decodeRecord(bytes, { room: 'lobby' })
    expect(decoded.ok).toBe(true)
  })
})
