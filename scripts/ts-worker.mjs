// Entry of a worker thread that runs a TypeScript module: tsx's loader hooks
// are not inherited by worker threads, so register them here first.
// workerData.entry is the module URL to run.
import { register } from 'tsx/esm/api'
import { workerData } from 'node:worker_threads'

register()
await import(workerData.entry)
