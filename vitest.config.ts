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
  },
})
