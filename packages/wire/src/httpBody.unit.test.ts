import { describe, expect, test } from 'vitest'
import { isJsonContentType } from './httpBody.js'

// Which Content-Type values count as JSON (the rest are refused with 415 by the rpc).

describe('isJsonContentType', () => {
  test('default: application/json, with parameters, any case', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', ' application/json ; x=1'])
      expect(isJsonContentType(type)).toBe(true)
  })

  test('error: anything else', () => {
    for (const type of [undefined, '', 'text/plain', 'application/jsonl', 'application/json-rpc', 'application/x-json', 'json'])
      expect(isJsonContentType(type)).toBe(false)
  })
})
