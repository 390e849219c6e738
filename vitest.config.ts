import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'relay/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    setupFiles: ['./scripts/node-preload.mjs'],
    testTimeout: 20_000,
    // Vitest's default is one worker per core minus one: a single worker on
    // CI's 2 cores. The slowest files (the agent CLI, relay and swarm tests)
    // mostly wait on child processes and sockets, so two overlap well.
    maxWorkers: 2,
  },
})
