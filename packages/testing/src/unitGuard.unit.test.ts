import { execFile, spawn } from 'node:child_process'
import { createConnection, createServer } from 'node:net'
import { expect, test } from 'vitest'

// Runs in the unit project, whose setup file is unitGuard.ts.

test('behavior: in the unit project, listening, connecting and spawning throw, naming the rule', () => {
  expect(() => createServer().listen(0)).toThrow(/a server listened in the unit project: unit tests start no server, database or child process/)
  expect(() => createConnection({ port: 5432, host: '127.0.0.1' })).toThrow(/a socket connected in the unit project/)
  expect(() => execFile('true')).toThrow(/child_process\.execFile in the unit project/)
  expect(() => spawn('true')).toThrow(/child_process\.spawn in the unit project/)
})
