import { emailPattern, hasUnsafeCharacters, maxPasswordLength } from '@uncle-rpc/accounts'
import { maxAllowlistEntries } from '@uncle-rpc/db/accounts'
import { z } from 'zod'
import { ApiError } from '../errors.js'

// Input shapes of the JSON API, checked at the edge; handlers only ever see parsed values. No
// text field may carry control characters (NUL, ESC…) or bidi overrides: they would reach the
// operator's terminal, other screens or Postgres (which refuses NUL).

/** A string without control, bidi or separator characters (`\n` and `\t` too when `allowNewlines`). */
const text = (options: { allowNewlines?: boolean } = {}) =>
  z.string().refine((value) => !hasUnsafeCharacters(value, options), options.allowNewlines ? 'no control characters' : 'no control characters or line breaks')

const email = text()
  .pipe(z.string().trim().toLowerCase().max(254, 'at most 254 characters'))
  .pipe(z.string().regex(emailPattern, 'enter an email address like name@example.com'))
/** Sign-in takes any stored email's shape (older rules were looser), still without control characters. */
const signInEmail = text().pipe(z.string().trim().toLowerCase().max(254, 'at most 254 characters'))
/** The password rule (length, email, common) is checked by passwordRule.ts once the email is known. */
const password = text().pipe(z.string().max(maxPasswordLength, `at most ${maxPasswordLength} characters`))
/** An emailed token: 32 random bytes, base64url. */
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'this link is broken: copy the whole link from the email')

export const signUpInput = z.object({ email, password })
export const signInInput = z.object({ email: signInEmail, password })
export const emailInput = z.object({ email: signInEmail })
export const tokenInput = z.object({ token })
export const resetInput = z.object({ token, password })
export const passwordChangeInput = z.object({ currentPassword: password, newPassword: password })

// `https://app.example.com`, `app.example.com:8080`, `*.example.com`: a scheme is optional, a wildcard only as the first label.
const originPattern = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?\/?$/i
const list = (entry: z.ZodType<string>, what: string) =>
  z.array(entry).max(maxAllowlistEntries, `at most ${maxAllowlistEntries} ${what}`).transform((items) => [...new Set(items)])
const origin = z.string().trim().max(255).regex(originPattern, 'an origin looks like https://app.example.com, app.example.com or *.example.com')
const userAgent = z.string().trim().min(1).max(200).regex(/^[\x20-\x7e]+$/, 'a user agent entry is printable ASCII')
const name = text().pipe(z.string().trim().min(1, 'give the key a name').max(100))
const cap = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable()
const networkName = z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'a network name is a DNS label like mainnet')
/** null = every network; an empty list would allow none, so it is refused. */
const networks = z.array(networkName).min(1, 'choose at least one network (or null for all)').max(maxAllowlistEntries).nullable()

export const createKeyInput = z.object({ name, networks: networks.optional() })
export const updateKeyInput = z
  .object({
    name: name.optional(),
    networks: networks.optional(),
    allowedOrigins: list(origin, 'origins').optional(),
    allowedUserAgents: list(userAgent, 'user agents').optional(),
    rpsCap: cap.optional(),
    dailyCap: cap.optional(),
  })
  .strict()
/** Rotate: a key with a secret gets a new one (`new`) or keeps it (`keep`); the caller must say which. */
export const rotateInput = z.object({ secret: z.enum(['new', 'keep']).optional() })
const maxUpgradeMessage = 500
export const upgradeInput = z.object({
  plan: z.enum(['growth', 'custom']),
  message: text({ allowNewlines: true })
    .pipe(z.string().trim().max(maxUpgradeMessage, `at most ${maxUpgradeMessage} characters`))
    .optional(),
})
export const usageQuery = z.object({
  key: z.coerce.number().int().positive().optional(),
  network: networkName.optional(),
})
const maxKeysPage = 100
export const keysPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(maxKeysPage).default(50),
  after: z.coerce.number().int().min(0).max(2 ** 31 - 1).default(0),
})

/** Parses `value` with `schema`, or throws a 400 ApiError naming the first problem. */
export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {})
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const field = issue?.path.join('.') ?? ''
  throw new ApiError(400, field === '' ? (issue?.message ?? 'bad request') : `${field}: ${issue?.message ?? 'invalid'}`)
}

/** A positive integer id from a path segment, or a 404 (never a 500 for `/api/keys/abc`). */
export function keyId(param: string | string[] | undefined): number {
  const text = typeof param === 'string' ? param : undefined
  const id = Number(text)
  if (text === undefined || !/^\d{1,9}$/.test(text) || !Number.isSafeInteger(id) || id < 1) throw new ApiError(404, 'no such key')
  return id
}
