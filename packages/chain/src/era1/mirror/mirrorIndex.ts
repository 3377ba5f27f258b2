// What a mirror publishes beside its era1 files: `checksums.txt` (sha256sum format, one
// `<hex>  <name>` per line) and a directory listing. Pure parsing; the mirror module fetches.

/** sha256 (lowercase hex) by file name, from a `checksums.txt` in sha256sum format (`*name` binary marks allowed). */
export function parseChecksums(text: string): Map<string, string> {
  const sums = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(line.trim())
    if (match) sums.set(match[2]!.slice(match[2]!.lastIndexOf('/') + 1), match[1]!.toLowerCase())
  }
  return sums
}

/** The standard era1 file names a listing (HTML index, plain list, checksums.txt) mentions for `network`. */
export function era1NamesIn(text: string, network: string): string[] {
  const escaped = network.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const re = new RegExp(`${escaped}-\\d{5,}-[0-9a-f]{8}\\.era1`, 'g')
  return [...new Set(text.match(re) ?? [])].sort()
}

/** The file of `epoch` among standard names, if listed. */
export function nameForEpoch(names: readonly string[], network: string, epoch: number): string | undefined {
  const prefix = `${network}-${String(epoch).padStart(5, '0')}-`
  return names.find((name) => name.startsWith(prefix))
}
