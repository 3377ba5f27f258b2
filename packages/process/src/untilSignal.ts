/**
 * Resolves with the first SIGINT or SIGTERM the process receives, then stops listening for
 * both, so a second signal gets Node's default (the process ends) instead of being swallowed.
 */
export function untilSignal(): Promise<'SIGINT' | 'SIGTERM'> {
  return new Promise((resolve) => {
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      resolve(signal)
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  })
}
