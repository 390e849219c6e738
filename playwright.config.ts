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
  // One spec at a time. A spec keeps 0.6 of a core busy on average (the
  // suite: about 600 s of CPU in 960 s) and specs share nothing (each makes
  // its own relay, app server, mock model and network namespaces on free
  // ports), but two at a time beside the simulator made the hidden-tab spec
  // miss its start deadline in a dry run, and saved nothing (the simulator
  // beside them took 660 s): E2E_WORKERS=2 tries it. `npm test` now runs
  // lint, type check and simulator beside this one at nice 19
  // (scripts/run-parallel.mjs), where they take only the CPU the tests leave.
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
