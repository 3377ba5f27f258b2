import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { loadNetworksConfig, parseNetworksConfig } from './networksConfig.js'

const mainnet = {
  name: 'mainnet',
  chainId: 1,
  rpcUrl: 'http://127.0.0.1:8545',
  fromBlock: 0,
  toBlock: 15537393,
  confirmations: 64,
  partnerUrl: 'https://partner.example/v3',
}

function problems(json: unknown): string {
  try {
    parseNetworksConfig(json, 'networks.json')
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('parseNetworksConfig', () => {
  test('default', () => {
    expect(parseNetworksConfig(JSON.stringify({ networks: [mainnet] }), 'networks.json')).toEqual({ networks: [mainnet] })
  })

  test('args: defaults for fromBlock and confirmations; toBlock and partnerUrl absent', () => {
    const config = parseNetworksConfig({ networks: [{ name: 'sepolia', chainId: 11155111, rpcUrl: 'wss://node/ws' }] }, 'x')
    expect(config.networks[0]).toStrictEqual({
      name: 'sepolia',
      chainId: 11155111,
      rpcUrl: 'wss://node/ws',
      fromBlock: 0,
      confirmations: 64,
    })
  })

  test('args: several networks may share a chainId', () => {
    const config = parseNetworksConfig({ networks: [mainnet, { ...mainnet, name: 'mainnet-2' }] }, 'x')
    expect(config.networks.map((n) => n.name)).toEqual(['mainnet', 'mainnet-2'])
  })

  test('behavior: frozen', () => {
    const config = parseNetworksConfig({ networks: [mainnet] }, 'x')
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.networks)).toBe(true)
    expect(Object.isFrozen(config.networks[0])).toBe(true)
  })

  test('error: names the bad key', () => {
    expect(problems({ networks: [{ ...mainnet, chainId: 0 }] })).toMatchInlineSnapshot(`
      "Invalid configuration in networks.json:
        networks[0].chainId: expected a positive integer"
    `)
  })

  test('error: unknown keys, with a suggestion for typos', () => {
    const { rpcUrl, ...rest } = mainnet
    expect(problems({ networks: [{ ...rest, rpcURL: rpcUrl, colour: 'red' }], rpc: {} })).toMatchInlineSnapshot(`
      "Invalid configuration in networks.json:
        networks[0].rpcURL: unknown key (did you mean "rpcUrl"?)
        networks[0].colour: unknown key
        networks[0].rpcUrl: expected an rpcUrl, an era1 source, or both
        rpc: unknown key"
    `)
  })

  test('error: every field checked', () => {
    expect(
      problems({
        networks: [
          {
            name: 'Main_Net',
            chainId: 1.5,
            rpcUrl: 'ftp://x',
            fromBlock: -1,
            toBlock: '5',
            confirmations: null,
            partnerUrl: 'x',
          },
          { name: '-a', chainId: '1', rpcUrl: 'http://x' },
        ],
      }),
    ).toMatchInlineSnapshot(`
      "Invalid configuration in networks.json:
        networks[0].name: expected a DNS label: 1–63 lowercase letters, digits or hyphens, not starting or ending with a hyphen
        networks[0].chainId: expected a positive integer
        networks[0].rpcUrl: expected an http://, https://, ws://, wss:// URL
        networks[0].fromBlock: expected a non-negative integer
        networks[0].toBlock: expected a non-negative integer
        networks[0].confirmations: expected a non-negative integer
        networks[0].partnerUrl: expected an http://, https://, ws://, wss:// URL
        networks[1].name: expected a DNS label: 1–63 lowercase letters, digits or hyphens, not starting or ending with a hyphen
        networks[1].chainId: expected a positive integer"
    `)
  })

  test('error: toBlock before fromBlock', () => {
    expect(problems({ networks: [{ ...mainnet, fromBlock: 10, toBlock: 9 }] })).toContain(
      'networks[0].toBlock: expected at least fromBlock (10)',
    )
  })

  test('args: era1 archives without a node, with a roots file', () => {
    const { rpcUrl: _rpcUrl, ...rest } = mainnet
    const config = parseNetworksConfig({ networks: [{ ...rest, era1: '/data/era1', era1Roots: 'roots.txt' }] }, 'networks.json')
    expect(config.networks[0]).toMatchObject({ era1: '/data/era1', era1Roots: 'roots.txt' })
    expect(config.networks[0]?.rpcUrl).toBeUndefined()
  })

  test('error: no source, no head to follow without a node, roots without era1', () => {
    const { rpcUrl: _rpcUrl, toBlock: _toBlock, ...rest } = mainnet
    expect(problems({ networks: [rest] })).toContain('networks[0].rpcUrl: expected an rpcUrl, an era1 source, or both')
    expect(problems({ networks: [{ ...rest, era1: '/data/era1' }] })).toContain(
      'networks[0].toBlock: expected a toBlock: without an rpcUrl there is no head to follow',
    )
    expect(problems({ networks: [{ ...mainnet, era1Roots: 'roots.txt' }] })).toContain(
      'networks[0].era1Roots: only meaningful with an era1 source',
    )
  })

  test('error: duplicate names', () => {
    expect(problems({ networks: [mainnet, { ...mainnet, chainId: 5 }] })).toContain(
      'networks[1].name: duplicate network name "mainnet" (also networks[0])',
    )
  })

  test('args: hosts (lowercased, a trailing dot dropped) and publicUrl', () => {
    const config = parseNetworksConfig(
      { networks: [{ ...mainnet, hosts: ['Mainnet.RPC.example.com.', 'uncles.mycompany.com', '10.0.0.5'], publicUrl: 'https://uncles.mycompany.com' }] },
      'x',
    )
    expect(config.networks[0]?.hosts).toEqual(['mainnet.rpc.example.com', 'uncles.mycompany.com', '10.0.0.5'])
    expect(config.networks[0]?.publicUrl).toBe('https://uncles.mycompany.com')
  })

  test('error: two networks claiming one host, patterns, ports, bad publicUrl', () => {
    const sepolia = { ...mainnet, name: 'sepolia', chainId: 11155111 }
    expect(problems({ networks: [{ ...mainnet, hosts: ['rpc.example.com'] }, { ...sepolia, hosts: ['a.example.com', 'RPC.example.com'] }] })).toContain(
      'networks[1].hosts[1]: "rpc.example.com" is already networks[0]\'s ("mainnet"): a host serves one network',
    )
    expect(problems({ networks: [{ ...mainnet, hosts: ['*.example.com'] }] })).toContain(
      'networks[0].hosts[0]: "*.example.com": patterns are not supported; list each host name',
    )
    expect(problems({ networks: [{ ...mainnet, hosts: ['rpc.example.com:8545'] }] })).toContain('without scheme, port or path')
    expect(problems({ networks: [{ ...mainnet, hosts: [] }] })).toContain('networks[0].hosts: expected at least one host name')
    expect(problems({ networks: [{ ...mainnet, publicUrl: 'ws://rpc.example.com' }] })).toContain('networks[0].publicUrl: expected an http://, https:// URL')
    expect(problems({ networks: [{ ...mainnet, publicUrl: 'https://rpc.example.com/?key=1' }] })).toContain('networks[0].publicUrl: expected a base URL')
  })

  test('error: shape', () => {
    expect(problems({})).toContain('networks: expected an array of networks')
    expect(problems({ networks: [] })).toContain('networks: expected at least one network')
    expect(problems([])).toContain('(root): ')
    expect(problems('{"networks": [')).toContain('networks.json:\n  not valid JSON: ')
  })
})

describe('loadNetworksConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'uncle-rpc-config-'))

  test('default', () => {
    const path = join(dir, 'ok.json')
    writeFileSync(path, JSON.stringify({ networks: [mainnet] }))
    expect(loadNetworksConfig(path).networks[0]?.name).toBe('mainnet')
  })

  test('error: names the file', () => {
    const path = join(dir, 'bad.json')
    writeFileSync(path, JSON.stringify({ networks: [{ ...mainnet, chainId: -1 }] }))
    expect(() => loadNetworksConfig(path)).toThrow(
      `Invalid configuration in ${path}:\n  networks[0].chainId: expected a positive integer`,
    )
    expect(() => loadNetworksConfig(join(dir, 'missing.json'))).toThrow(`${join(dir, 'missing.json')}:\n  file not found`)
  })
})
