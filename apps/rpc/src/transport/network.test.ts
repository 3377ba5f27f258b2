import { describe, expect, test } from 'vitest'
import { createNetworkResolver, hostLabel } from './network.js'

const mainnet = { name: 'mainnet', confirmations: 64 }
const sepolia = { name: 'sepolia', confirmations: 8 }

describe('hostLabel', () => {
  test('default: the first label, lowercased, without the port', () => {
    expect(hostLabel('mainnet.localhost:8545')).toBe('mainnet')
    expect(hostLabel('Sepolia.rpc.example.com')).toBe('sepolia')
  })

  test('args: no label for IP addresses and single-label hosts', () => {
    for (const host of [undefined, '', 'localhost', 'localhost:8545', '127.0.0.1:8545', '10.0.0.1', '[::1]:8545'])
      expect(hostLabel(host)).toBeUndefined()
  })
})

describe('createNetworkResolver', () => {
  test('default: from the host; a host without a label means the only network', () => {
    const one = createNetworkResolver([mainnet])
    expect(one.fromHost('mainnet.example.com')).toBe(mainnet)
    expect(one.fromHost('127.0.0.1:8545')).toBe(mainnet)
    expect(one.fromHost('goerli.example.com')).toEqual({ unknown: 'goerli' })
    const two = createNetworkResolver([mainnet, sepolia])
    expect(two.fromHost('sepolia.example.com')).toBe(sepolia)
    expect(two.fromHost('localhost:8545')).toEqual({ unknown: 'localhost:8545' })
    expect(two.lookup('sepolia')).toBe(sepolia)
    expect(two.lookup('toString')).toBeUndefined()
  })

  test('error: the 404 body names the network and lists the known ones', () => {
    expect(createNetworkResolver([sepolia, mainnet]).unknownBody('x"<')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"network \\"x\\"\\u003c\\" is not served here; known networks: mainnet, sepolia"}}',
    )
  })
})
