import { describe, expect, test } from 'vitest'
import { escapeForTerminal, hasUnsafeCharacters } from './unsafeText.js'

describe('unsafe text', () => {
  test('default: ordinary text, accents and emoji pass', () => {
    for (const text of ['web app (production)', 'Zoë’s wallet', 'ключ 🦄', '<b>markup is text</b>']) expect(hasUnsafeCharacters(text)).toBe(false)
  })

  test('behavior: NUL, ESC, DEL, C1, bidi overrides and separators are caught', () => {
    for (const c of ['\u0000', '\u001b', '\u007f', '\u009b', '\u202e', '\u2066', '\u200f', '\u2028', '\r', '\n'])
      expect(hasUnsafeCharacters(`a${c}b`), JSON.stringify(c)).toBe(true)
    expect(hasUnsafeCharacters('line one\nline two\tend', { allowNewlines: true })).toBe(false)
    expect(hasUnsafeCharacters('line\u001b[2J', { allowNewlines: true })).toBe(true)
  })

  test('behavior: escapeForTerminal shows controls as escapes, on one line', () => {
    expect(escapeForTerminal('evil\u001b[31mRED\u001b[0m@x.io')).toBe('evil\\u{1b}[31mRED\\u{1b}[0m@x.io')
    expect(escapeForTerminal('a\\u{1b}\n\u202eb')).toBe('a\\\\u{1b}\\u{a}\\u{202e}b')
    expect(escapeForTerminal('plain é')).toBe('plain é')
  })
})
