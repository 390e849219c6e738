/**
 * A verification thread of a Node peer (verify-pool.node.ts): checks each
 * batch of records it is sent exactly as decodeRecord does, with node:crypto's
 * Ed25519, and answers the verdicts in order. Started through
 * scripts/ts-worker.mjs, which makes TypeScript loadable.
 */
import { parentPort } from 'node:worker_threads'
import { inProcessDecoder, packVerdicts, unpackRecords } from './batch-verify'
import { nodeVerify } from './verify.node.js'
import type { FromVerifyWorker, ToVerifyWorker } from './verify-pool.node.js'

const port = parentPort
if (port === null) throw new Error('verify-worker.node.ts runs only as a worker thread')
const decode = inProcessDecoder(nodeVerify)
port.on('message', (message: ToVerifyWorker) => {
  void decode(unpackRecords(message.packed), message.room).then((results) =>
    port.postMessage({ n: message.n, results: packVerdicts(results) } satisfies FromVerifyWorker),
  )
})
port.postMessage({ n: -1, results: { count: 0, rejected: [] } } satisfies FromVerifyWorker)
