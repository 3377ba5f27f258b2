// Many waits with one timer. A timer per wait (a setTimeout and a clearTimeout per query or per
// read) was measurable on the hot path, and under load node-postgres's timer per query kept each
// query and its rows alive through the young generation's scavenges.

/** A value in a timer list, until it is removed or expires. */
export type TimerListEntry<T> = { readonly value: T }

export type TimerList<T> = {
  /** Appends `value`; it expires once `dueOf(value)` has passed, unless removed first. */
  add(value: T): TimerListEntry<T>
  /** Takes `entry` out (it was answered in time); nothing when it already left. */
  remove(entry: TimerListEntry<T>): void
  /** Entries waiting (tests). */
  readonly size: number
}

export type CreateTimerListParameters<T> = {
  /**
   * When a value is due, on performance.now()'s clock. It must not decrease along the list (values
   * added later are due no earlier) and may only move later while a value waits, so that the
   * first value is always the first due.
   */
  dueOf: (value: T) => number
  /** Called once for each value past its due time, oldest first, after it left the list. */
  expire: (value: T) => void
}

type Node<T> = TimerListEntry<T> & { listed: boolean; prev: Node<T> | undefined; next: Node<T> | undefined }

/**
 * Values in the order they were added, with one unreferenced timer armed for the first one's due
 * time: when it fires, every value past its due time expires and the timer is armed again for the
 * first left. While the list is empty no timer is armed, and a timer whose values were all
 * removed finds nothing to do, so a steady flow of short waits costs about one timer per wait's
 * length, not one per wait. Unreferenced: what a value waits for keeps the process alive, not this.
 */
export function createTimerList<T>({ dueOf, expire }: CreateTimerListParameters<T>): TimerList<T> {
  let head: Node<T> | undefined
  let tail: Node<T> | undefined
  let size = 0
  let armed = false

  function unlink(node: Node<T>): void {
    if (node.prev === undefined) head = node.next
    else node.prev.next = node.next
    if (node.next === undefined) tail = node.prev
    else node.next.prev = node.prev
    node.prev = undefined
    node.next = undefined
    node.listed = false
    size--
  }

  function arm(delayMs: number): void {
    armed = true
    setTimeout(sweep, Math.max(1, delayMs)).unref()
  }

  function sweep(): void {
    armed = false
    const now = performance.now()
    while (head !== undefined && dueOf(head.value) <= now) {
      const node = head
      unlink(node)
      expire(node.value)
    }
    if (head !== undefined && !armed) arm(dueOf(head.value) - now)
  }

  return {
    add(value) {
      const node: Node<T> = { value, listed: true, prev: tail, next: undefined }
      if (tail === undefined) head = node
      else tail.next = node
      tail = node
      size++
      if (!armed) arm(dueOf(value) - performance.now())
      return node
    },
    remove(entry) {
      const node = entry as Node<T>
      if (node.listed) unlink(node)
    },
    get size() {
      return size
    },
  }
}
