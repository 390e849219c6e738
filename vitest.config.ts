import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'relay/**/*.test.ts',
      'test/**/*.test.ts',
      'bench/**/*.test.ts',
      // the e2e fixtures' pure parts (Playwright runs only *.spec.ts)
      'e2e/**/*.test.ts',
    ],
    setupFiles: ['./scripts/node-preload.mjs'],
    // builds the Node commands the tests spawn, when a source changed
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 20_000,
    // vitest's default is one worker fewer than the cores: one on CI's two.
    // Most of the slow files wait on child processes and sockets, not CPU.
    maxWorkers: 2,
    // Files share a worker's module cache instead of importing libp2p, the AI
    // SDK and the rest afresh for each of them: the imports were 63 of the
    // suite's 366 CPU-seconds, and with shared modules the whole suite takes
    // 224. Tests restore what they change (fake timers, a stubbed fetch) in
    // their own after-hooks; a test that leaks state into the next file is a
    // defect in that test.
    isolate: false,
  },
})
