import { maxAllowlistEntries } from '@uncle-rpc/db'
import { z } from 'zod'
import { ApiError } from '../errors.js'

// Input shapes of the JSON API, checked at the edge; handlers only ever see parsed values.

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'enter an email address like name@example.com')
/** Sign-up: 10 to 200 characters; sign-in accepts any length up to 200 (old rules may differ). */
export const signUpInput = z.object({ email, password: z.string().min(10, 'use at least 10 characters').max(200) })
export const signInInput = z.object({ email: z.string().trim().toLowerCase().max(254), password: z.string().max(200) })

// `https://app.example.com`, `app.example.com:8080`, `*.example.com`: a scheme is optional, a wildcard only as the first label.
const originPattern = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?\/?$/i
const list = (entry: z.ZodType<string>, what: string) =>
  z.array(entry).max(maxAllowlistEntries, `at most ${maxAllowlistEntries} ${what}`).transform((items) => [...new Set(items)])
const origin = z.string().trim().max(255).regex(originPattern, 'an origin looks like https://app.example.com, app.example.com or *.example.com')
const userAgent = z.string().trim().min(1).max(200).regex(/^[\x20-\x7e]+$/, 'a user agent entry is printable ASCII')
const name = z.string().trim().min(1, 'give the key a name').max(100)
const cap = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable()
const networks = z.array(z.string().min(1).max(64)).max(maxAllowlistEntries).nullable()

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
export const upgradeInput = z.object({ plan: z.enum(['growth', 'custom']), message: z.string().trim().max(2000).optional() })
export const usageQuery = z.object({
  key: z.coerce.number().int().positive().optional(),
  network: z.string().min(1).max(64).optional(),
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
