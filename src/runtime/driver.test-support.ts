/** What the driver tests share: waiting for what a real LLM call over HTTP brings. */

/** Polls `check` every 50 ms; throws naming `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
