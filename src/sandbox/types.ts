/**
 * The sandbox contract: run a program the model wrote, with no network, no
 * storage, a time limit and an output cap, and say what happened. Only the
 * executor that asked the model runs the code; what ran reaches the core as
 * data (a CodeStep in the result, src/protocol/steps.ts).
 */
import type { CodeLanguage } from '../protocol/steps'

export interface CodeRunRequest {
  language: CodeLanguage
  code: string
}

/** What one run did. Output is already cut to the sandbox's caps. */
export interface CodeRun {
  language: CodeLanguage
  code: string
  stdout: string
  stderr: string
  /** 0: ended normally; 1: threw, hit a limit or was stopped */
  exit: number
  /** why it ended badly (the exception, "time limit of 5 s reached", "memory limit reached"); '' when exit is 0 */
  error: string
  durationMs: number
  timedOut: boolean
}

export interface CodeSandbox {
  /** Runs one program. Never rejects for the program's own faults (they are in the CodeRun); rejects only when signal aborts. */
  run(request: CodeRunRequest, signal?: AbortSignal): Promise<CodeRun>
  /** Frees the worker. Later runs start a new one. */
  close(): void
}
