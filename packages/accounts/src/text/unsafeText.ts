// Characters that must never reach a terminal, a log or another user's screen from user input:
// C0 and C1 controls (ESC starts terminal escape sequences, NUL breaks Postgres text), DEL, and
// the Unicode bidi controls and line separators that reorder or split what is shown.

/** One control or formatting character that user text must not carry (`u` flag: code points). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/u
const unsafeAll = new RegExp(unsafe.source, 'gu')

/** Whether `text` holds a control, bidi or separator character; `allowNewlines` lets `\n` (and `\t`) through, for messages. */
export function hasUnsafeCharacters(text: string, { allowNewlines = false }: { allowNewlines?: boolean } = {}): boolean {
  return unsafe.test(allowNewlines ? text.replace(/[\n\t]/g, ' ') : text)
}

/**
 * `text` safe to print on a terminal, one line: every control, bidi or separator character, and
 * the backslash, written as an escape (`\u{1b}`, `\\`), so what the operator sees is what was stored.
 */
export function escapeForTerminal(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(unsafeAll, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
}
