/**
 * Per-process CPU from /proc (Linux): utime + stime of each process, so a
 * benchmark can say what one Chromium renderer (a tab: its page and its
 * worker) or one Node agent costs, not only the sum.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** /proc/<pid>/stat times are in clock ticks; Linux's USER_HZ is 100 */
const CLOCK_TICKS_PER_S = 100

export interface ProcInfo {
  pid: number
  ppid: number
  name: string
  /** CPU seconds (user + system) used so far */
  cpuSeconds: number
}

/** A /proc stat line (a process's or a thread's). */
function parseStat(pid: number, stat: string): ProcInfo {
  // the name is in parentheses and may hold spaces: split after its closing one
  const close = stat.lastIndexOf(')')
  const fields = stat.slice(close + 2).split(' ')
  return {
    pid,
    ppid: Number(fields[1]),
    name: stat.slice(stat.indexOf('(') + 1, close),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S,
  }
}

/** One process's stat line, or null when it is gone. */
export function readProc(pid: number): ProcInfo | null {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return null
  }
}

/** CPU seconds so far of each of a process's threads, summed by thread name; null when it is gone. */
export function threadCpu(pid: number): Map<string, number> | null {
  try {
    const byName = new Map<string, number>()
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const t = parseStat(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'))
      byName.set(t.name, (byName.get(t.name) ?? 0) + t.cpuSeconds)
    }
    return byName
  } catch {
    return null
  }
}

/** Every process descending from `root` (not `root` itself). */
export function descendants(root: number): ProcInfo[] {
  const all: ProcInfo[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const info = readProc(pid)
    if (info) all.push(info)
  }
  const byPid = new Map(all.map((p) => [p.pid, p]))
  const isUnder = (p: ProcInfo): boolean => {
    for (let q = byPid.get(p.ppid); q; q = byPid.get(q.ppid)) {
      if (q.pid === root) return true
    }
    return p.ppid === root
  }
  return all.filter(isUnder)
}

/** Chromium's process type (`renderer`, `gpu-process`, `utility`, …; `browser` without a --type). */
export function chromiumType(pid: number): string | null {
  try {
    // Chromium rewrites its command line as one space-separated string
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/)
    if (!args[0]?.includes('chrom')) return null
    const type = args.find((a) => a.startsWith('--type='))
    if (!type) return 'browser'
    const sub = args.find((a) => a.startsWith('--utility-sub-type='))
    return type.slice(7) + (sub ? `:${sub.slice(sub.lastIndexOf('.') + 1)}` : '')
  } catch {
    return null
  }
}

/** Does the process run a thread named like `prefix` (e.g. Chromium's "DedicatedWorker thread")? */
export function hasThread(pid: number, prefix: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith(prefix)
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

/**
 * Firefox's process type: `parent` for the browser itself, else the last
 * word of a child's command line (`tab` for a web content process, `socket`,
 * `rdd`, `utility`, …); null for a process that is not Firefox.
 */
export function firefoxType(pid: number): string | null {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    if (!args[0]?.includes('firefox')) return null
    return args.includes('-contentproc') ? (args.at(-1) ?? 'child') : 'parent'
  } catch {
    return null
  }
}
