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
    testTimeout: 20_000,
    // vitest's default is one worker fewer than the cores: one on CI's two.
    // Most of the slow files wait on child processes and sockets, not CPU.
    maxWorkers: 2,
  },
})
