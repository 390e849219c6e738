import { describe, expect, it } from 'vitest'
import { firstEnough } from './enough'

const after = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms))
const never = <T>() => new Promise<T>(() => {})

describe('firstEnough', () => {
  it('resolves once enough tasks succeed, without waiting for the slow ones', async () => {
    const got = await firstEnough(
      [after(5, 'a'), never<string>(), after(10, 'b'), never()],
      2,
      () => true,
    )
    expect(got).toEqual(['a', 'b'])
  })

  it('does not count failures, and waits for every task when too few succeed', async () => {
    const got = await firstEnough(
      [after(1, 'bad'), after(5, 'a'), after(10, 'bad')],
      2,
      (r) => r !== 'bad',
    )
    expect(got).toEqual(['bad', 'a', 'bad'])
  })

  it('with enough at or above the number of tasks, waits for all of them', async () => {
    expect(await firstEnough([after(5, 1), after(1, 2)], 2, () => true)).toEqual([1, 2])
    expect(await firstEnough([], 2, () => true)).toEqual([])
  })
})
