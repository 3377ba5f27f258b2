import { readFileSync } from 'node:fs'

// The password rule of sign-up, reset and change: long enough, and not something an attacker
// tries first (the email itself, one character repeated, a very common password).

export const minPasswordLength = 10
export const maxPasswordLength = 200

/** data/commonPasswords.txt (beside src/ and dist/), lowercased, without its comment lines. */
const commonPasswords = new Set(
  readFileSync(new URL('../../data/commonPasswords.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter((line) => line !== '' && !line.startsWith('#')),
)

/** Why `password` is refused for the account with `email`, or null when it is fine. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < minPasswordLength) return `use at least ${minPasswordLength} characters`
  if (password.length > maxPasswordLength) return `use at most ${maxPasswordLength} characters`
  const lower = password.toLowerCase()
  const address = email.trim().toLowerCase()
  const local = address.split('@')[0] ?? ''
  if (lower.includes(address) || (local.length >= 4 && lower.includes(local))) return 'do not use your email address in your password'
  if (/^(.)\1*$/su.test(password)) return 'do not repeat one character'
  if (commonPasswords.has(lower)) return 'this password is too common: choose another'
  return null
}
