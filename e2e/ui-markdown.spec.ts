/**
 * Results and plans are untrusted text from other peers' LLMs. Rendered as
 * Markdown, they keep their formatting and lose everything active: no
 * scripts or handlers, no forms or frames, no images fetched, links that open
 * apart (no opener, no referrer) and only to the web or e-mail.
 */
import { expect } from '@playwright/test'
import { test } from './fixtures/workers'

test('untrusted Markdown renders safely', async ({ page, lab }) => {
  const requested: string[] = []
  page.on('request', (request) => requested.push(request.url()))
  await page.goto(`${lab.url}lab.html?nodes=20`)
  const hostile = page.locator('#hostile')
  await expect(hostile.getByRole('heading', { name: 'A result from a peer' })).toBeVisible()

  // formatting survives
  await expect(hostile.getByRole('table')).toBeVisible()
  await expect(hostile.getByText('styled text')).toBeVisible()
  await expect(hostile.getByRole('link', { name: 'the docs' })).toHaveAttribute(
    'href',
    'https://example.org/docs',
  )

  // nothing active survives
  const dangerous = await hostile.evaluate((root) => ({
    elements: [
      ...root.querySelectorAll('script, img, iframe, form, input, button, svg, style, object'),
    ].map((e) => e.tagName),
    handlers: [...root.querySelectorAll('*')].flatMap((e) =>
      [...e.attributes].filter((a) => /^on|^style$/i.test(a.name)).map((a) => a.name),
    ),
    hrefs: [...root.querySelectorAll('a')].map((a) => a.getAttribute('href')),
  }))
  expect(dangerous.elements).toEqual([])
  expect(dangerous.handlers).toEqual([])
  expect(dangerous.hrefs.filter((h) => h !== null && !/^(https?:|mailto:)/.test(h))).toEqual([])
  await expect(hostile.getByText('run me')).not.toHaveAttribute('href', /./)
  expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()

  // every link opens in a new tab with neither opener nor referrer
  for (const link of await hostile.locator('a[href]').all()) {
    await expect(link).toHaveAttribute('target', '_blank')
    await expect(link).toHaveAttribute('rel', /noopener/)
    await expect(link).toHaveAttribute('rel', /noreferrer/)
  }

  // images become links to them and are never fetched by themselves
  await expect(hostile.getByRole('link', { name: '[image: remote pixel]' })).toHaveAttribute(
    'href',
    'http://127.0.0.1:9/pixel.png',
  )
  await page.waitForTimeout(500)
  expect(requested.filter((url) => url.startsWith('http://127.0.0.1:9/'))).toEqual([])
})
