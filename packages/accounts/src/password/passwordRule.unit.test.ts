import { describe, expect, test } from 'vitest'
import { passwordProblem } from './passwordRule.js'

describe('passwordRule', () => {
  test('default: a long, unusual password passes', () => {
    expect(passwordProblem('correct horse battery', 'dev@example.com')).toBeNull()
    expect(passwordProblem('Zoë rides 7 trams', 'zoe@example.com')).toBeNull()
  })

  test('error: short, the email, its name, one character repeated, a common password', () => {
    expect(passwordProblem('short', 'dev@example.com')).toBe('use at least 10 characters')
    expect(passwordProblem('Alice@Example.com', 'alice@example.com')).toBe('do not use your email address in your password')
    expect(passwordProblem('alice.smith2026', 'alice.smith@example.com')).toBe('do not use your email address in your password')
    expect(passwordProblem('aaaaaaaaaa', 'dev@example.com')).toBe('do not repeat one character')
    expect(passwordProblem('🦄🦄🦄🦄🦄🦄🦄🦄🦄🦄', 'dev@example.com')).toBe('do not repeat one character')
    expect(passwordProblem('Password123', 'dev@example.com')).toBe('this password is too common: choose another')
    expect(passwordProblem('QWERTYUIOP', 'dev@example.com')).toBe('this password is too common: choose another')
  })
})
