/** A sleep that can be ended early. */
export type WakeableSleep = {
  /** Resolves after `ms`, or when `wake()` is called, whichever comes first. */
  sleep(ms: number): Promise<void>
  /** Ends the sleep in progress; with none in progress, the next sleep returns at once (a wake is never lost). */
  wake(): void
}

/** A sleep for loops that something else may need to hurry (a stop, a new head announced). */
export function createWakeableSleep(): WakeableSleep {
  let wakeSleeper: (() => void) | undefined
  let pending = false
  return {
    sleep(ms) {
      return new Promise((resolve) => {
        if (pending) {
          pending = false
          return resolve()
        }
        const finish = () => {
          clearTimeout(timer)
          wakeSleeper = undefined
          resolve()
        }
        const timer = setTimeout(finish, ms)
        wakeSleeper = finish
      })
    },
    wake() {
      if (wakeSleeper) wakeSleeper()
      else pending = true
    },
  }
}
