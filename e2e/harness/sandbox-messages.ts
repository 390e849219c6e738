/** Messages between the sandbox harness page and its host worker. */
import type { SandboxInit } from '../../src/sandbox/limits'
import type { CodeRun } from '../../src/sandbox/types'
import type { WorkerHostOptions } from '../../src/sandbox/worker-host'

export interface HarnessRun {
  id: number
  code: string
  /** the sandbox to use: one per distinct (init, options) */
  init?: SandboxInit
  options?: WorkerHostOptions
  /** aborts the run this many ms after it starts */
  abortAfterMs?: number
}

export type HarnessReply =
  { id: number; run: CodeRun; ms: number } | { id: number; rejected: string; ms: number }
