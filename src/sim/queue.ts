/** A binary min-heap of timed events; ties keep insertion order, so runs are reproducible. */
export interface Timed<T> {
  at: number
  seq: number
  value: T
}

export class EventQueue<T> {
  private readonly heap: Timed<T>[] = []
  private seq = 0

  get size(): number {
    return this.heap.length
  }

  push(at: number, value: T): void {
    this.heap.push({ at, seq: this.seq++, value })
    let i = this.heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(i, parent)) break
      this.swap(i, parent)
      i = parent
    }
  }

  peekTime(): number | undefined {
    return this.heap[0]?.at
  }

  pop(): Timed<T> | undefined {
    const top = this.heap[0]
    const last = this.heap.pop()
    if (top === undefined || last === undefined) return undefined
    if (this.heap.length > 0) {
      this.heap[0] = last
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        const right = left + 1
        let smallest = i
        if (left < this.heap.length && this.less(left, smallest)) smallest = left
        if (right < this.heap.length && this.less(right, smallest)) smallest = right
        if (smallest === i) break
        this.swap(i, smallest)
        i = smallest
      }
    }
    return top
  }

  private less(i: number, j: number): boolean {
    const a = this.heap[i]!
    const b = this.heap[j]!
    return a.at < b.at || (a.at === b.at && a.seq < b.seq)
  }

  private swap(i: number, j: number): void {
    const tmp = this.heap[i]!
    this.heap[i] = this.heap[j]!
    this.heap[j] = tmp
  }
}
