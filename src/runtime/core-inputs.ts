/**
 * What reaches the role core from outside as inputs (PeerInput): the plan
 * records as they come, and the answer of the core's check with its
 * neighbours before a contested claim.
 */
import type { SwarmNode } from '../net/types'
import type { PlanRecord } from '../protocol/records'
import { SYNC_CHECK_PEERS, SYNC_CHECK_SESSIONS } from '../protocol/rules'
import type { PeerInput } from '../roles/index'
import type { CoreHost } from './host'

export interface CoreInputsInit {
  core: Pick<CoreHost, 'deliver'>
  /** the current epoch's node; null before the first connect */
  node: () => SwarmNode | null
  log: (message: string) => void
}

export class CoreInputs {
  private batch: PeerInput[] = []

  constructor(private readonly init: CoreInputsInit) {}

  record(record: PlanRecord): void {
    this.queue({ type: 'record', record })
  }

  // The core's check with its neighbours before a contested claim starts:
  // anti-entropy with SYNC_CHECK_SESSIONS linked peers, 'synced' once
  // SYNC_CHECK_PEERS of them have answered, queued behind the records they
  // brought so the core sees them first.
  checkSync(): void {
    const { node, log } = this.init
    const done = (answered: boolean) => this.queue({ type: 'synced', answered })
    const current = node()
    if (!current) return done(false)
    const round = { enough: SYNC_CHECK_PEERS, peers: SYNC_CHECK_SESSIONS }
    current.syncNow(round).then(
      (reports) => done(reports.some((report) => report.error === undefined)),
      (err: Error) => {
        log(`anti-entropy before a contested claim failed: ${err.message}`)
        done(false)
      },
    )
  }

  // records come in bursts (a sync brings hundreds): hand them over in one batch, one step
  private queue(input: PeerInput): void {
    this.batch.push(input)
    if (this.batch.length === 1) {
      queueMicrotask(() => {
        const inputs = this.batch
        this.batch = []
        this.init.core.deliver(inputs)
      })
    }
  }
}
