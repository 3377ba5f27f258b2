/** Lines kept at the bottom of a terminal, with log lines printed above them. */
export type LiveBlock = {
  /** Prints `text` (one or more lines) above the block. */
  log(text: string): void
  /** Replaces the block's lines. */
  update(lines: readonly string[]): void
  /** Leaves the last lines on screen and stops drawing. */
  close(): void
}

/**
 * A block of status lines redrawn in place with ANSI cursor movement (cursor up, erase down), as
 * live terminal views do; writes go through `write` (the terminal).
 */
export function createLiveBlock(write: (text: string) => void): LiveBlock {
  let lines: readonly string[] = []
  let closed = false
  // Note: erase the block, write what goes above it, draw the block again — one write, no flicker.
  const erase = () => (lines.length === 0 ? '' : `\x1b[${lines.length}F\x1b[0J`)
  const draw = () => (lines.length === 0 ? '' : `${lines.join('\n')}\n`)
  return {
    log(text) {
      if (closed) return write(text)
      write(erase() + (text.endsWith('\n') ? text : `${text}\n`) + draw())
    },
    update(next) {
      if (closed) return
      const before = erase()
      lines = next
      write(before + draw())
    },
    close() {
      closed = true
    },
  }
}
