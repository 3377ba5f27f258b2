/** Resolves after `ms` milliseconds. For pacing and back-off; tests wait on events instead. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
