import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repositoryRoot } from '@uncle-rpc/testing'

/** A Markdown file of the repository, by its path from the root. */
export function readDoc(path: string): string {
  return readFileSync(join(repositoryRoot, path), 'utf8')
}

/** The first cells, without backticks, of the rows of the first table after the line `heading`. */
export function firstColumn(text: string, heading: string): string[] {
  const lines = text.split('\n')
  const at = lines.indexOf(heading)
  if (at === -1) throw new Error(`no "${heading}" heading`)
  lines.splice(0, at)
  const start = lines.findIndex((l) => l.startsWith('|'))
  const rows: string[] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.split('|')[1]!.trim().replaceAll('`', ''))
  }
  return rows
}
