/**
 * The bench's own unit tests (bench/*.test.ts), kept out of `npm test`'s
 * include list: `npx vitest run -c bench/vitest.config.ts`.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['bench/**/*.test.ts'],
    setupFiles: ['./scripts/node-preload.mjs'],
    testTimeout: 20_000,
  },
})
