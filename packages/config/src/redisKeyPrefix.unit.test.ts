import { expect, test } from 'vitest'
import { redisKeyPrefix } from './redisKeyPrefix.js'

test('default: the database name of the URL, decoded; `postgres` when the URL names none', () => {
  expect(redisKeyPrefix('postgres://postgres@127.0.0.1:5432/uncle_rpc')).toBe('uncle-rpc:uncle_rpc')
  expect(redisKeyPrefix('postgres://u:p@db.example:5432/my%20db?sslmode=require')).toBe('uncle-rpc:my db')
  expect(redisKeyPrefix('postgres://127.0.0.1:5432')).toBe('uncle-rpc:postgres')
})
