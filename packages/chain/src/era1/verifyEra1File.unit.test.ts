import { readFileSync } from 'node:fs'
import { describeWithFixtures, fixturePath, readFixtureText } from '@uncle-rpc/testing'
import { expect, test } from 'vitest'
import { era1BlockInput, writeEra1 } from './_test/writeEra1.js'
import { era1FileName, parseEra1FileName } from './era1FileName.js'
import { mainnetEpochRoots, parseEpochRoots, publishedEpochRoots } from './epochRoots.js'
import { Era1FileRefusedError } from './errors.js'
import { openEra1 } from './openEra1.js'
import { verifyEra1File } from './verifyEra1File.js'

const era1 = 'mainnet-era1/mainnet-00000-5ec1ffb8.era1'
const rootsFixture = 'mainnet-era1/premerge-epoch-roots.txt'

function refusal(fn: () => unknown): Era1FileRefusedError {
  try {
    fn()
  } catch (error) {
    if (error instanceof Era1FileRefusedError) return error
    throw error
  }
  throw new Error('expected the file to be refused')
}

test('default: the shipped mainnet roots (1,897, epoch 0 first)', () => {
  const { roots } = mainnetEpochRoots()
  expect(roots.length).toBe(1897)
  expect(roots[0]).toBe('0x5ec1ffb8c3b146f42606c74ced973dc16ec5a107c0345858c343fc94780b4218')
  expect(roots[1896]).toBe('0xe6ebe562c89bc8ecb94dc9b2889a27a816ec05d3d6bd1625acad72227071e721')
  expect(publishedEpochRoots('mainnet')).toBe(publishedEpochRoots(1n))
  expect(publishedEpochRoots('sepolia')).toBeUndefined()
})

test('args: era1 file names', () => {
  expect(parseEra1FileName('/data/mainnet-01896-e6ebe562.era1')).toEqual({ network: 'mainnet', epoch: 1896, rootPrefix: 'e6ebe562' })
  expect(parseEra1FileName('my-net-00003-0a0b0c0d.era1')).toEqual({ network: 'my-net', epoch: 3, rootPrefix: '0a0b0c0d' })
  expect(parseEra1FileName('epoch0.era1')).toBeUndefined()
  expect(era1FileName({ network: 'mainnet', epoch: 1, root: '0xA5364E9A9bc513c4601f0d62e6b46dbdedf3200bbfae54d6350f46f2c7a01938' })).toBe(
    'mainnet-00001-a5364e9a.era1',
  )
})

test('error: a malformed roots file names the line', () => {
  expect(() => parseEpochRoots({ text: '# roots\n0x12\n', source: 'r.txt' })).toThrowErrorMatchingInlineSnapshot(`[Era1RootsFileError: Epoch roots file r.txt: line 2 is not a 0x-prefixed 32-byte root: 0x12]`)
  expect(() => parseEpochRoots({ text: '# nothing\n', source: 'r.txt' })).toThrowErrorMatchingInlineSnapshot(`[Era1RootsFileError: Epoch roots file r.txt: holds no roots]`)
})

describeWithFixtures([rootsFixture], 'shipped roots vs the shared fixture', () => {
  test('default: the data file holds exactly the fixture’s roots', () => {
    expect(mainnetEpochRoots().roots).toEqual(parseEpochRoots({ text: readFixtureText(rootsFixture), source: 'fixture' }).roots)
  })
})

describeWithFixtures([era1], 'verifyEra1File', () => {
  const bytes = readFileSync(fixturePath(era1))
  const roots = mainnetEpochRoots()

  test('default: real epoch 0 matches its published root and its name', () => {
    expect(verifyEra1File({ bytes, file: 'mainnet-00000-5ec1ffb8.era1', roots })).toMatchObject({
      epoch: 0,
      blocks: 8192,
      uncles: 1410,
      checked: 'published',
      accumulatorRoot: roots.roots[0],
    })
    expect(verifyEra1File({ bytes, file: 'copy.era1' }).checked).toBe('self')
  })

  test('error: a self-consistent file named as a mainnet epoch is refused (root differs from the published one)', () => {
    const source = openEra1(bytes)
    const forged = writeEra1(
      Array.from({ length: 16 }, (_, i) => era1BlockInput(source, BigInt(i))),
      { startNumber: 0n },
    )
    const root = verifyEra1File({ bytes: forged, file: 'forged.era1' }).accumulatorRoot
    const file = era1FileName({ network: 'mainnet', epoch: 0, root })
    const error = refusal(() => verifyEra1File({ bytes: forged, file, roots }))
    expect(error).toMatchObject({ file, epoch: 0, cause: { mismatch: { what: 'publishedRoot', epoch: 0 } } })
    expect(error.shortMessage).toMatch(
      new RegExp(`^Refused era1 file ${file} \\(epoch 0\\): Era1 file failed verification: epoch 0 accumulator root computes to ${root}, but the published root of epoch 0 is ${roots.roots[0]}$`),
    )
  })

  test('error: one flipped byte is refused, naming the file and epoch', () => {
    const copy = new Uint8Array(bytes)
    copy[2_000_000]! ^= 0x01
    const error = refusal(() => verifyEra1File({ bytes: copy, file: 'mainnet-00000-5ec1ffb8.era1', roots }))
    expect(error).toMatchObject({ file: 'mainnet-00000-5ec1ffb8.era1', epoch: 0 })
    expect(error.reason.length).toBeGreaterThan(10)
  })

  test('error: a name that disagrees with the content, and an epoch with no published root', () => {
    expect(refusal(() => verifyEra1File({ bytes, file: 'mainnet-00000-5ec1ffb9.era1' })).reason).toMatchInlineSnapshot(`"Era1 file failed verification: the file name says root 5ec1ffb9, but the content gives 5ec1ffb8"`)
    expect(refusal(() => verifyEra1File({ bytes, file: 'mainnet-00007-5ec1ffb8.era1' })).reason).toMatchInlineSnapshot(`"Era1 file failed verification: the file name says epoch 7, but the content gives 0"`)
    const none = { source: 'empty.txt', roots: [] }
    expect(refusal(() => verifyEra1File({ bytes, file: 'x.era1', roots: none })).reason).toMatchInlineSnapshot(`"no published root for epoch 0 in empty.txt"`)
  })
})
