// Test-only: a process's JSON log (stderr) read back; a line that is not JSON (a raw stack) stays a string.

export const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>
      } catch {
        return line
      }
    })
