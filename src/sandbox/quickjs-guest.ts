/**
 * The guest runner shared by the browser and Node sandboxes: runs one
 * program in a fresh QuickJS engine (its own WebAssembly instance and
 * memory, thrown away after the run) and says what happened.
 *
 * The program is a classic script. It sees the ECMAScript built-ins, a
 * `console` (log/info/debug to stdout, warn/error to stderr) and timers in
 * virtual time (guest-prelude.ts), and nothing of the host: no fetch, no
 * storage, no modules. Only what it prints counts: the value of its last
 * expression is not reported (the tool tells the model to print its results
 * with console.log). Promise jobs and timers run to completion after the
 * script, so async functions work; a promise still pending at the end
 * (nothing is left to settle it) is reported as an error.
 *
 * Limits: a deadline checked by QuickJS's interrupt handler; the guest heap
 * capped twice, by QuickJS's allocation limit (which in this build bounds
 * single allocations only, quickjs-emscripten #271) and by a WebAssembly
 * memory with a maximum (which bounds the total); QuickJS's stack size.
 * Runs in a worker: a hang inside WebAssembly is the host's to end
 * (worker-host.ts terminates the worker).
 */
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
} from 'quickjs-emscripten-core'
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync'
import { GUEST_PRELUDE_SOURCE } from './guest-prelude'
import { clip, cutMarker, memoryLimitMessage, timeLimitMessage, type GuestLimits } from './limits'

/** What a run did: the CodeRun without the request's fields. */
export interface GuestResult {
  stdout: string
  stderr: string
  exit: number
  error: string
  durationMs: number
  timedOut: boolean
}

const WASM_PAGE = 65_536
const MB = 1024 * 1024
/** The engine's own start: the initial memory its build asks for (INITIAL_MEMORY, 16 MB). */
const ENGINE_START_BYTES = 16 * MB

/** Output of the two streams, each capped; what is cut is counted for the marker. */
class Output {
  private readonly text = ['', '']
  private readonly cut = [0, 0]

  constructor(private readonly caps: [number, number]) {}

  /** Appends a line the guest already sliced; returns the room left on that stream. */
  write(stream: 0 | 1, text: string, fullLength: number): number {
    const cap = this.caps[stream]
    const have = this.text[stream] as string
    const taken = text.slice(0, Math.max(0, cap - have.length))
    this.text[stream] = have + taken
    const full = Number.isFinite(fullLength) && fullLength >= text.length ? fullLength : text.length
    this.cut[stream] = (this.cut[stream] as number) + full - taken.length
    return cap - (this.text[stream] as string).length
  }

  read(stream: 0 | 1): string {
    const cut = this.cut[stream] as number
    return (this.text[stream] as string) + (cut > 0 ? cutMarker(cut) : '')
  }
}

/**
 * Runs `code` in a fresh engine instantiated from `wasmModule` (the compiled
 * QuickJS release build). Never rejects: a failure of the engine itself is
 * the run's error too, so the worker always answers.
 */
export async function runGuest(
  wasmModule: WebAssembly.Module,
  code: string,
  limits: GuestLimits,
): Promise<GuestResult> {
  try {
    return await runFresh(wasmModule, code, limits)
  } catch (thrown) {
    const error = `the engine could not start: ${thrown instanceof Error ? thrown.message : String(thrown)}`
    return { stdout: '', stderr: '', exit: 1, error, durationMs: 0, timedOut: false }
  }
}

async function runFresh(
  wasmModule: WebAssembly.Module,
  code: string,
  limits: GuestLimits,
): Promise<GuestResult> {
  const maxBytes = ENGINE_START_BYTES + limits.memoryMb * MB
  const memory = new WebAssembly.Memory({
    initial: ENGINE_START_BYTES / WASM_PAGE,
    maximum: Math.ceil(maxBytes / WASM_PAGE),
  })
  const quickjs = await newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, { wasmModule, wasmMemory: memory }),
  )
  const output = new Output([limits.stdoutChars, limits.stderrChars])
  const runtime = quickjs.newRuntime()
  runtime.setMemoryLimit(limits.memoryMb * MB)
  runtime.setMaxStackSize(limits.stackBytes)
  const started = performance.now()
  const deadline = started + limits.timeLimitMs
  let timedOut = false
  runtime.setInterruptHandler(() => (timedOut ||= performance.now() > deadline))
  const memoryFull = (): boolean => memory.buffer.byteLength + WASM_PAGE > maxBytes

  let error: string
  const context = runtime.newContext()
  try {
    const runNextTimer = installPrelude(context, output, limits)
    try {
      error = evaluate(context, code, runNextTimer)
    } finally {
      runNextTimer.dispose()
    }
  } catch (thrown) {
    // the engine itself failed (a WebAssembly trap, the host's stack): this instance is discarded anyway
    const message = thrown instanceof Error ? thrown.message : String(thrown)
    error = /call stack/i.test(message)
      ? 'RangeError: stack overflow'
      : `the engine stopped: ${message}`
  }
  const durationMs = Math.round(performance.now() - started)
  if (timedOut) error = timeLimitMessage(limits.timeLimitMs)
  else if (error !== '' && (/out of memory/.test(error) || memoryFull()))
    error = memoryLimitMessage(limits.memoryMb)
  try {
    context.dispose()
    runtime.dispose()
  } catch {
    // a run that ended in a trap may leave the engine unable to free itself; its memory goes with it
  }
  return {
    stdout: output.read(0),
    stderr: output.read(1),
    exit: error === '' ? 0 : 1,
    error: clip(error, limits.errorChars),
    durationMs,
    timedOut,
  }
}

/** Installs the console and timers; returns the guest's runNextTimer function. */
function installPrelude(
  context: QuickJSContext,
  output: Output,
  limits: GuestLimits,
): QuickJSHandle {
  const write = context.newFunction('write', (stream, text, fullLength) => {
    const room = output.write(
      context.getNumber(stream) === 1 ? 1 : 0,
      context.getString(text),
      context.getNumber(fullLength),
    )
    return context.newNumber(room)
  })
  const install = context.unwrapResult(context.evalCode(GUEST_PRELUDE_SOURCE, 'prelude.js'))
  const caps = [context.newNumber(limits.stdoutChars), context.newNumber(limits.stderrChars)]
  try {
    return context.unwrapResult(context.callFunction(install, context.undefined, write, ...caps))
  } finally {
    for (const handle of [write, install, ...caps]) handle.dispose()
  }
}

/**
 * Evaluates the program, then runs its promise jobs and its timers until none
 * are left; returns the error text ('' when it ended normally).
 */
function evaluate(context: QuickJSContext, code: string, runNextTimer: QuickJSHandle): string {
  const result = context.evalCode(code, 'program.js')
  if (result.error !== undefined) return describe(context, result.error)
  const value = result.value
  try {
    for (let fired = true; fired;) {
      const jobs = context.runtime.executePendingJobs(-1)
      if (jobs.error !== undefined) return describe(context, jobs.error)
      const next = context.callFunction(runNextTimer, context.undefined)
      if (next.error !== undefined) return describe(context, next.error)
      fired = next.value.consume((handle) => context.dump(handle) === true)
    }
    const state = context.getPromiseState(value)
    if (state.type === 'rejected') return describe(context, state.error)
    if (state.type === 'pending')
      return "the program's promise never settled (no timer was left to settle it, and the sandbox has no I/O)"
    if (state.notAPromise !== true) state.value.dispose()
    return ''
  } finally {
    value.dispose()
  }
}

/** An exception as text: "Name: message" and QuickJS's stack; frees the handle. */
function describe(context: QuickJSContext, handle: QuickJSHandle): string {
  try {
    const thrown: unknown = context.dump(handle)
    if (typeof thrown === 'object' && thrown !== null && 'message' in thrown) {
      const { name, message, stack } = thrown as {
        name?: unknown
        message?: unknown
        stack?: unknown
      }
      const head = `${typeof name === 'string' ? name : 'Error'}: ${String(message)}`
      return typeof stack === 'string' && stack.trim() !== ''
        ? `${head}\n${collapseRepeats(stack.trimEnd())}`
        : head
    }
    return `Uncaught ${typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown))}`
  } finally {
    handle.dispose()
  }
}

/** A stack with runs of one repeated frame (deep recursion) told once, with a count. */
function collapseRepeats(stack: string): string {
  const lines = stack.split('\n')
  const kept: string[] = []
  for (let i = 0; i < lines.length;) {
    let end = i
    while (lines[end + 1] === lines[i]) end++
    kept.push(lines[i] as string)
    if (end > i) kept.push(`    … the frame above ${end - i} more times`)
    i = end + 1
  }
  return kept.join('\n')
}
