import { defineConfig } from '@playwright/test'
import { chromiumArgs } from './e2e/fixtures/chromium-args'

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
  // Two specs at a time (E2E_WORKERS=1 for one). The suite is mostly CPU:
  // about 1,300 CPU-seconds on the Chromium of early December 2026 (650 to
  // 700 on 156.0.8078.129: docs/PERFORMANCE.md), Chromium's renderers half
  // of them, and one spec at a time kept only 1.3 cores busy. Three at a
  // time took 720 s alone on this machine against 1,080 one at a time, but
  // beside lint, type check and simulator (which `npm test` runs at nice
  // 19, scripts/run-parallel.mjs) the whole command took no less than with
  // two (1,083 s in a dry run): two cores were full either way, and with
  // three the timed tests ran closer to their bounds (a tab's first direct
  // link 12 to 15 s after its page loaded, against 6).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // the last lines recap what failed (with its error) and what was skipped
  // and why: a log cut to its tail still says it
  reporter: [
    ['list'],
    ['html', { outputFolder: 'e2e/artifacts/report', open: 'never' }],
    ['./e2e/fixtures/failure-summary.ts'],
    ['./e2e/fixtures/skip-summary.ts'],
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: chromiumArgs(),
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
