/**
 * Resolves with the results so far once `enough` of `tasks` have resolved
 * with a result that `ok` accepts, or once all have resolved (whatever their
 * results). The tasks must not reject. The rest carry on unobserved.
 */
export function firstEnough<T>(
  tasks: Promise<T>[],
  enough: number,
  ok: (result: T) => boolean,
): Promise<T[]> {
  if (enough >= tasks.length) return Promise.all(tasks)
  return new Promise((resolve) => {
    const results: T[] = []
    let good = 0
    for (const task of tasks) {
      void task.then((result) => {
        results.push(result)
        if (ok(result)) good++
        if (good === enough || results.length === tasks.length) resolve(results)
      })
    }
  })
}
