/**
 * The app with the keyboard alone, at phone width, and through what a screen
 * reader announces (roles and accessible names); several goals, cancelling
 * one, leaving and coming back as another role.
 */
import type { Page } from '@playwright/test'
import { expect, screenshot, test } from './fixtures/ui-app'
import { expectJoined, unnamedControls } from './fixtures/ui-steps'

/** The focused element shows a focus ring. */
async function expectVisibleFocus(page: Page): Promise<void> {
  const outline = await page.evaluate(() => {
    const el = document.activeElement
    if (!el) return 'none'
    const style = getComputedStyle(el)
    const row = el.querySelector(':scope > .row')
    return style.outlineStyle !== 'none' && style.outlineWidth !== '0px'
      ? style.outlineStyle
      : row
        ? getComputedStyle(row).outlineStyle
        : 'none'
  })
  expect(outline).not.toBe('none')
}

async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)
}

test('keyboard only: join, submit two goals, cancel one, switch to observer', async ({
  browse,
  room,
  app,
}) => {
  test.setTimeout(120_000)
  const machine = await browse.machine('mine')
  await machine.grantPermissions(['microphone', 'clipboard-read', 'clipboard-write'], {
    origin: app.origin,
  })
  const page = await browse.tab(machine, 'keyboard')
  await page.setViewportSize({ width: 375, height: 800 })
  await expectNoHorizontalScroll(page)

  // start screen: the new room's name, New room, the invite field, then the four roles, in that order
  expect(await unnamedControls(page)).toEqual([])
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('Name of your new room')).toBeFocused()
  await page.keyboard.press('Tab')
  await expect(page.getByRole('button', { name: 'New room' })).toBeFocused()
  await page.keyboard.press('Tab')
  await expect(page.getByLabel('Invite link')).toBeFocused()
  await page.keyboard.type(room.link(app.origin))
  await expect(page.getByLabel('Room name')).toHaveValue(room.name)
  await page.keyboard.press('Tab')
  const decomposer = page.getByRole('button', { name: /^Decomposer\b/ })
  await expect(decomposer).toBeFocused()
  await expectVisibleFocus(page)
  await page.keyboard.press('Enter')
  await expectJoined(page, 'decomposer')
  await expectNoHorizontalScroll(page)

  // the composer: disabled while empty, Enter submits
  const goalBox = page.getByRole('textbox', { name: 'New goal' })
  await expect(page.getByRole('button', { name: 'Submit goal' })).toBeDisabled()
  await goalBox.focus()
  await page.keyboard.type('Organise a book club for the autumn')
  await expect(page.getByRole('button', { name: 'Submit goal' })).toBeEnabled()
  await page.keyboard.press('Enter')
  await expect(goalBox).toHaveValue('')
  await page.keyboard.type('Write a welcome email for new members')
  await page.keyboard.press('Enter')

  // several goals: a list of them, the newest shown
  const goals = page.getByRole('navigation', { name: 'Goals in this room' })
  await expect(goals.getByRole('button')).toHaveCount(2)
  await expect(
    page.getByRole('heading', { level: 2, name: 'Write a welcome email for new members' }),
  ).toBeVisible()
  const first = goals.getByRole('button', { name: /Organise a book club/ })
  await first.focus()
  await page.keyboard.press('Enter')
  await expect(first).toHaveAttribute('aria-current', 'true')
  await expect(
    page.getByRole('heading', { level: 2, name: 'Organise a book club for the autumn' }),
  ).toBeVisible()

  // cancel, with a confirmation that takes the focus
  await page.getByRole('button', { name: 'Cancel goal…' }).focus()
  await page.keyboard.press('Enter')
  const confirm = page.getByRole('alertdialog')
  await expect(confirm).toContainText('Cancel “Organise a book club for the autumn”?')
  await expect(confirm.getByRole('button', { name: 'Yes, cancel the goal' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(first).toContainText('Cancelled')
  await expect(page.getByRole('button', { name: 'Cancel goal…' })).toHaveCount(0)
  await expectNoHorizontalScroll(page)
  // every control has a name a screen reader can announce (settings and invite panel open too)
  await page.getByText('Model and API key').click()
  await page.getByRole('button', { name: 'Invite' }).click()
  expect(await unnamedControls(page)).toEqual([])
  await page.getByRole('button', { name: 'Close' }).click()
  await screenshot(page, 'decomposer-two-goals-phone')

  // this tab's PeerId: short on screen, copied whole
  const copyPeer = page.getByRole('button', { name: /^Copy this tab’s peer ID …\w{6} \(12D3KooW/ })
  await copyPeer.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('status').filter({ hasText: 'Copied' }).first()).toBeVisible()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toMatch(/^12D3KooW\w{44}$/)
  expect(await copyPeer.innerText()).toBe(`…${copied.slice(-6)}`)

  // leave, and come back as an observer: the same plan, watch only
  await page.getByRole('button', { name: 'Leave or switch role' }).focus()
  await page.keyboard.press('Enter')
  const observer = page.getByRole('button', { name: /^Observer\b/ })
  await expect(observer).toBeVisible()
  await expect(page.getByLabel('Room name')).toHaveValue(room.name)
  await observer.focus()
  await page.keyboard.press('Enter')
  await expectJoined(page, 'observer')
  await expect(page.getByRole('textbox', { name: 'New goal' })).toHaveCount(0)
  await expect(goals.getByRole('button')).toHaveCount(2, { timeout: 30_000 })
  await expect(goals.getByRole('button', { name: /Organise a book club/ })).toContainText(
    'Cancelled',
  )
  expect(new URL(page.url()).searchParams.get('role')).toBe('observer')
})

test('the plan tree is a keyboard-navigable ARIA tree', async ({ page, lab }) => {
  await page.goto(`${lab.url}lab.html?nodes=60`)
  const tree = page.getByRole('tree', { name: /^Plan tree: / })
  const items = tree.getByRole('treeitem')
  // one tab stop: the root
  await expect(tree.locator('[role="treeitem"][tabindex="0"]')).toHaveCount(1)
  await items.first().focus()
  await expectVisibleFocus(page)
  await expect(items.first()).toHaveAttribute('aria-level', '1')
  await expect(items.first()).toHaveAttribute('aria-expanded', 'true')
  expect(await unnamedControls(page)).toEqual([])

  // down to the first subgoal: focus, selection and the details follow
  await page.keyboard.press('ArrowDown')
  const second = items.nth(1)
  await expect(second).toBeFocused()
  await expect(second).toHaveAttribute('aria-selected', 'true')
  await expect(second).toHaveAttribute('aria-level', '2')
  const label = (await second.getAttribute('aria-label')) ?? ''
  const text = label.split('. ')[0] ?? ''
  await expect(page.locator('#node-detail-title')).toHaveText(text)

  // a node two levels down starts closed; → opens it, ← closes it, ← again goes to its parent
  await page.keyboard.press('ArrowDown')
  const third = items.nth(2)
  await expect(third).toHaveAttribute('aria-level', '3')
  await expect(third).toHaveAttribute('aria-expanded', 'false')
  const before = await items.count()
  await page.keyboard.press('ArrowRight')
  await expect(third).toHaveAttribute('aria-expanded', 'true')
  await expect.poll(() => items.count()).toBeGreaterThan(before)
  await page.keyboard.press('ArrowLeft')
  await expect(third).toHaveAttribute('aria-expanded', 'false')
  await expect(items).toHaveCount(before)
  await page.keyboard.press('ArrowLeft')
  await expect(second).toBeFocused()

  // Home and End
  await page.keyboard.press('End')
  await expect(items.last()).toBeFocused()
  await page.keyboard.press('Home')
  await expect(items.first()).toBeFocused()
  // the tree is still one tab stop, now on the focused node
  await expect(tree.locator('[role="treeitem"][tabindex="0"]')).toHaveCount(1)
})
