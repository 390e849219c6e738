import { defineConfig } from '@playwright/test'

/**
 * Real Chromium (Debian's, at /usr/bin/chromium: `npx playwright install`
 * cannot download browsers here), real WebRTC, loopback only.
 *
 * Chromium needs both --allow-loopback-in-peer-connection (without it ICE
 * gathering never completes on loopback) and a microphone permission for the
 * page's origin (without it, it gathers no host candidates at all).
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  testIgnore: 'artifacts/**',
  outputDir: 'e2e/artifacts/test-results',
  globalSetup: './e2e/global-setup.ts',
  // One spec at a time (E2E_WORKERS=2 for two). The suite is mostly CPU,
  // not waiting: 1,635 CPU-seconds (its cgroup, at load 12; Chromium's
  // renderers 771 of them). Two at a time took 957 s against 1,073 in a dry
  // run, but each test ran 1.5 to 2 times longer, and in the next dry run
  // relays.spec's late tab held 2 direct links, not 3, when it looked: a
  // flake that one spec at a time has not shown. `npm test` runs lint, type
  // check and simulator beside them at nice 19 (scripts/run-parallel.mjs).
  workers: Number(process.env.E2E_WORKERS ?? 1),
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // skip-summary last: the run's final lines name what was skipped and why
  reporter: [
    ['list'],
    ['html', { outputFolder: 'e2e/artifacts/report', open: 'never' }],
    ['./e2e/fixtures/skip-summary.ts'],
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--allow-loopback-in-peer-connection'],
    },
    permissions: ['microphone'],
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    // no screencast in the trace: recording frames of every tab cost a third
    // of the e2e suite's CPU (action snapshots are kept, and a failed test's
    // screenshots)
    // and none under CI, whose artifacts nobody can open: there a failure's
    // log line and screenshot are what is read
    trace: process.env.CI
      ? 'off'
      : { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: false },
    screenshot: 'only-on-failure',
  },
})
