/**
 * Messages between a sandbox and its worker (a browser Worker or a Node
 * worker thread). The worker loads the engine, says `ready`, then answers
 * each `run` with `done`; it runs one program at a time.
 */
import type { GuestLimits } from './limits'
import type { GuestResult } from './quickjs-guest'

export interface RunMessage {
  type: 'run'
  id: number
  code: string
  limits: GuestLimits
}

export type WorkerMessage =
  | { type: 'ready' }
  /** the engine could not be loaded: the sandbox cannot run code here */
  | { type: 'broken'; message: string }
  | { type: 'done'; id: number; result: GuestResult }
