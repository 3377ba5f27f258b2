import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repositoryRoot } from '@uncle-rpc/testing'

/** A Markdown file of the repository, by its path from the root. */
export function readDoc(path: string): string {
  return readFileSync(join(repositoryRoot, path), 'utf8')
}

/** The text without fenced code blocks, whose `#` lines are comments, not headings. */
function withoutCode(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
}

/** The anchors GitHub gives the headings of a Markdown text (lowercase, punctuation dropped, spaces → '-'). */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>()
  for (const [, heading] of withoutCode(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replaceAll('`', '')
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replaceAll(' ', '-')
    let anchor = slug
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

/** The targets of the inline links `[text](target)` of a Markdown text, outside code blocks. */
export function linkTargets(text: string): string[] {
  return [...withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
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
