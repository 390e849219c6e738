/**
 * The runtime's call log: this peer's own LLM calls, for the person whose
 * key paid (never gossiped). The log is call-log.ts's, bounded; its
 * CallStore keeps it across restarts (memory only without one). A storage
 * failure is logged and costs only the stored copy.
 */
import { addCall, EMPTY_CALL_LOG, restoreCallLog, type CallEntry, type CallStore } from './call-log'

export interface RuntimeCalls {
  /** newest first */
  entries(): CallEntry[]
  /** a finished call: kept, and stored */
  add(call: CallEntry): void
}

/** The call log as `store` kept it (trimmed to the limits), then kept up to date. */
export async function loadCalls(
  store: CallStore | undefined,
  log: (message: string) => void,
): Promise<RuntimeCalls> {
  const keepCalls = (what: string, work: Promise<void> | undefined) =>
    work?.catch((err: Error) => log(`could not ${what} the call log: ${err.message}`))
  let callLog = EMPTY_CALL_LOG
  if (store) {
    try {
      const restoredCalls = restoreCallLog(await store.load())
      callLog = restoredCalls.log
      if (restoredCalls.evicted.length) void keepCalls('trim', store.remove(restoredCalls.evicted))
    } catch (err) {
      log(`could not load the call log: ${(err as Error).message}`)
    }
  }
  return {
    entries: () => [...callLog.entries],
    add(call) {
      const added = addCall(callLog, call)
      callLog = added.log
      void keepCalls('save', store?.save(call))
      if (added.evicted.length) void keepCalls('trim', store?.remove(added.evicted))
    },
  }
}
