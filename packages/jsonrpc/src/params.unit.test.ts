import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { InvalidParamsError } from './errors.js'
import { decodeBlockNumberOrTag, decodeBool, decodeHash, decodeUint, optionalArg, positionalParams } from './params.js'

const H = '0x84e538e6da2340e3d4d90535f334c22974fecd037798d1cf8965c02e8ab3394b'

/** The -32602 message a call throws (fails the test if it does not throw one). */
function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParamsError)
    return (error as InvalidParamsError).shortMessage
  }
  throw new Error('expected an InvalidParamsError')
}

describe('positionalParams', () => {
  test('default', () => {
    expect(positionalParams([H, '0x1'], [decodeHash, decodeUint])).toEqual([H, 1n])
  })

  test('args: omitted or null params are an empty array', () => {
    expect(positionalParams(undefined, [])).toEqual([])
    expect(positionalParams(null, [optionalArg(decodeBool)])).toEqual([undefined])
  })

  test('args: optional trailing arguments (missing or null → undefined)', () => {
    const decoders = [decodeHash, optionalArg(decodeBool)] as const
    expect(positionalParams([H], decoders)).toEqual([H, undefined])
    expect(positionalParams([H, null], decoders)).toEqual([H, undefined])
    expect(positionalParams([H, true], decoders)).toEqual([H, true])
  })

  test('error: geth messages and order', () => {
    const decoders = [decodeHash, decodeUint] as const
    expect(messageOf(() => positionalParams({}, decoders))).toBe('non-array args')
    expect(messageOf(() => positionalParams('x', decoders))).toBe('non-array args')
    expect(messageOf(() => positionalParams(0, decoders))).toBe('non-array args')
    expect(messageOf(() => positionalParams([], decoders))).toBe('missing value for required argument 0')
    expect(messageOf(() => positionalParams([H], decoders))).toBe('missing value for required argument 1')
    expect(messageOf(() => positionalParams([H, '0x0', true], decoders))).toBe('too many arguments, want at most 2')
    // geth decodes the arguments it has before it notices an extra or a missing one.
    expect(messageOf(() => positionalParams(['0x12', '0x0', true], decoders))).toBe(
      'invalid argument 0: hex string has length 2, want 64 for common.Hash',
    )
    expect(messageOf(() => positionalParams([H, '0x01', true], decoders))).toMatch(/^invalid argument 1: /)
    expect(messageOf(() => positionalParams([1], decoders))).toMatch(/^invalid argument 0: /)
  })
})

describe('decodeHash', () => {
  test('default: lowercases, accepts 0X and upper-case digits', () => {
    expect(decodeHash(H, 0)).toBe(H)
    expect(decodeHash(`0X${H.slice(2).toUpperCase()}`, 0)).toBe(H)
  })

  test.each([
    ['0x1234', 'hex string has length 4, want 64 for common.Hash'],
    ['0x', 'hex string has length 0, want 64 for common.Hash'],
    ['', 'hex string has length 0, want 64 for common.Hash'],
    [`${H}00`, 'hex string has length 66, want 64 for common.Hash'],
    [H.slice(0, -1), 'json: cannot unmarshal hex string of odd length into Go value of type common.Hash'],
    [H.slice(2), 'json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash'],
    [`${H.slice(0, -1)}g`, 'json: cannot unmarshal invalid hex string into Go value of type common.Hash'],
    // Go counts bytes: é is 2 bytes in UTF-8, so 62 ASCII digits + é is 64 bytes, a syntax error.
    [`${H.slice(0, -2)}é`, 'json: cannot unmarshal invalid hex string into Go value of type common.Hash'],
    [`${H.slice(0, -1)}é`, 'json: cannot unmarshal hex string of odd length into Go value of type common.Hash'],
    [0, 'json: cannot unmarshal non-string into Go value of type common.Hash'],
    [null, 'json: cannot unmarshal non-string into Go value of type common.Hash'],
    [[H], 'json: cannot unmarshal non-string into Go value of type common.Hash'],
  ])('error: %j', (value, message) => {
    expect(messageOf(() => decodeHash(value, 0))).toBe(`invalid argument 0: ${message}`)
  })
})

describe('decodeUint', () => {
  test('default', () => {
    expect(decodeUint('0x0', 1)).toBe(0n)
    expect(decodeUint('0x1f', 1)).toBe(31n)
    expect(decodeUint('0X1F', 1)).toBe(31n)
    expect(decodeUint('0xffffffffffffffff', 1)).toBe(2n ** 64n - 1n)
  })

  test('behavior: "" is 0 (geth checkNumberText quirk)', () => {
    expect(decodeUint('', 1)).toBe(0n)
  })

  const wrap = (m: string) => `invalid argument 1: json: cannot unmarshal ${m} into Go value of type hexutil.Uint`
  test.each([
    ['0x', wrap('hex string "0x"')],
    ['0x01', wrap('hex number with leading zero digits')],
    ['0x00', wrap('hex number with leading zero digits')],
    ['0', wrap('hex string without 0x prefix')],
    ['1', wrap('hex string without 0x prefix')],
    ['0xg', wrap('invalid hex string')],
    ['0x-1', wrap('invalid hex string')],
    ['0x10000000000000000', wrap('hex number > 64 bits')],
    // The length is checked before the digits.
    ['0xgggggggggggggggggg', wrap('hex number > 64 bits')],
    [`0x${'é'.repeat(9)}`, wrap('hex number > 64 bits')],
    [0, wrap('non-string')],
    [null, wrap('non-string')],
    [true, wrap('non-string')],
    [{}, wrap('non-string')],
  ])('error: %j', (value, message) => {
    expect(messageOf(() => decodeUint(value, 1))).toBe(message)
  })
})

describe('decodeBlockNumberOrTag', () => {
  test('default', () => {
    for (const tag of ['latest', 'earliest', 'pending', 'finalized', 'safe']) expect(decodeBlockNumberOrTag(tag, 0)).toBe(tag)
    expect(decodeBlockNumberOrTag('0x0', 0)).toBe(0n)
    expect(decodeBlockNumberOrTag('0X1B4', 0)).toBe(436n)
    expect(decodeBlockNumberOrTag('0x7fffffffffffffff', 0)).toBe(2n ** 63n - 1n)
  })

  const arg = (m: string) => `invalid argument 0: ${m}`
  test.each([
    ['', arg('empty hex string')],
    ['Latest', arg('hex string without 0x prefix')],
    [' latest', arg('hex string without 0x prefix')],
    ['1', arg('hex string without 0x prefix')],
    ['0x', arg('hex string "0x"')],
    ['0x01', arg('hex number with leading zero digits')],
    ['0xg', arg('invalid hex string')],
    ['0x8000000000000000', arg('block number larger than int64')],
    ['0xffffffffffffffff', arg('block number larger than int64')],
    ['0x10000000000000000', arg('hex number > 64 bits')],
    // strconv.ParseUint: a bad 17th character is a syntax error, a bad 18th comes after the overflow.
    ['0x1234567890123456g', arg('invalid hex string')],
    ['0x12345678901234567g', arg('hex number > 64 bits')],
    // Non-strings: geth reads the raw JSON text, which never starts with 0x.
    [1, arg('hex string without 0x prefix')],
    [null, arg('hex string without 0x prefix')],
    [false, arg('hex string without 0x prefix')],
    [{ blockNumber: '0x1' }, arg('hex string without 0x prefix')],
  ])('error: %j', (value, message) => {
    expect(messageOf(() => decodeBlockNumberOrTag(value, 0))).toBe(message)
  })
})

describe('decodeBool', () => {
  test('default', () => {
    expect(decodeBool(true, 1)).toBe(true)
    expect(decodeBool(false, 1)).toBe(false)
  })

  test('behavior: null is false (Go keeps the zero value)', () => {
    expect(decodeBool(null, 1)).toBe(false)
  })

  test.each([
    ['true', 'string'],
    [1, 'number'],
    [{}, 'object'],
    [[], 'array'],
  ])('error: %j', (value, kind) => {
    expect(messageOf(() => decodeBool(value, 1))).toBe(
      `invalid argument 1: json: cannot unmarshal ${kind} into Go value of type bool`,
    )
  })
})

describe('decodeHash over generated text', () => {
  test('behavior: a value is a hash exactly when it is 0x or 0X and 64 hex digits of either case, and comes back lowercase', () => {
    const near = fc
      .tuple(fc.constantFrom('0x', '0X', '0', 'x', ''), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFgG/:`@x '), minLength: 62, maxLength: 66 }))
      .map(([prefix, digits]) => prefix + digits)
    const hash = fc
      .tuple(fc.constantFrom('0x', '0X'), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 64, maxLength: 64 }))
      .map(([prefix, digits]) => prefix + digits)
    // Note: lowercase hashes too, the form that is returned as it is.
    const lower = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }).map((digits) => `0x${digits}`)
    const oneOff = fc
      .tuple(fc.oneof(hash, lower), fc.nat({ max: 65 }), fc.constantFrom(...'gG/:`@x 0aF\u0130\u0161\u0080'))
      .map(([value, at, c]) => value.slice(0, at) + c + value.slice(at + 1))
    let hashes = 0
    fc.assert(
      fc.property(fc.oneof(near, hash, lower, oneOff), (value) => {
        const valid = /^0[xX][0-9a-fA-F]{64}$/.test(value)
        let decoded: string | undefined
        try {
          decoded = decodeHash(value, 0)
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidParamsError)
        }
        expect(decoded).toBe(valid ? `0x${value.slice(2).toLowerCase()}` : undefined)
        if (valid) hashes++
      }),
      { numRuns: 3000 },
    )
    expect(hashes).toBeGreaterThan(500)
  })
})
