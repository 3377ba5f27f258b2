import { describe, expect, test } from 'vitest'
import { createNetworkResolver, hostLabel, hostName } from './network.js'

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

describe('hostName', () => {
  test('default: lowercased, without port or trailing dot', () => {
    expect(hostName('RPC.Example.com:8545')).toBe('rpc.example.com')
    expect(hostName('rpc.example.com.')).toBe('rpc.example.com')
    expect(hostName('[::1]:8545')).toBe('[::1]')
    expect(hostName(undefined)).toBe('')
  })
})

describe('createNetworkResolver', () => {
  test('default: from the host; a host without a label means the only network', () => {
    const one = createNetworkResolver([mainnet])
    expect(one.fromHost('mainnet.example.com')).toBe(mainnet)
    expect(one.fromHost('127.0.0.1:8545')).toBe(mainnet)
    const two = createNetworkResolver([mainnet, sepolia])
    expect(two.fromHost('sepolia.example.com')).toBe(sepolia)
    expect(two.fromHost('localhost:8545')).toMatchObject({ unknown: 'localhost' })
    expect(two.lookup('sepolia')).toBe(sepolia)
    expect(two.lookup('toString')).toBeUndefined()
    expect(two.fromPath('toString')).toMatchObject({ unknown: 'toString' })
  })

  test('behavior: with one network every host is that network, DNS names included', () => {
    const one = createNetworkResolver([mainnet])
    for (const host of ['rpc.example.com', 'api.example.com', 'eth.example.com:443', 'example.com', 'goerli.example.com']) expect(one.fromHost(host)).toBe(mainnet)
    expect(createNetworkResolver([{ ...mainnet, hosts: ['uncles.mycompany.com'] }]).fromHost('rpc.example.com')).toMatchObject({ name: 'mainnet' })
  })

  test('behavior: configured hosts, exact, any case, port ignored; the first label only for networks without hosts', () => {
    const main = { ...mainnet, hosts: ['uncles.mycompany.com', 'mainnet.rpc.example.com'] }
    const sep = { ...sepolia, hosts: ['sepolia.rpc.example.com'] }
    const holesky = { name: 'holesky', confirmations: 8 }
    const resolver = createNetworkResolver([main, sep, holesky])
    expect(resolver.fromHost('uncles.mycompany.com')).toBe(main)
    expect(resolver.fromHost('Mainnet.RPC.example.com:8545')).toBe(main)
    expect(resolver.fromHost('sepolia.rpc.example.com.')).toBe(sep)
    expect(resolver.fromHost('holesky.example.com')).toBe(holesky)
    // A network that names its hosts is not reached by its first label.
    expect(resolver.fromHost('mainnet.example.com')).toMatchObject({ unknown: 'mainnet.example.com' })
    expect(resolver.fromHost('mycompany.com')).toMatchObject({ unknown: 'mycompany.com' })
  })

  test('error: a host that matches nothing gets the 404 listing the configured addresses', () => {
    const resolver = createNetworkResolver([
      { ...mainnet, hosts: ['mainnet.rpc.example.com'] },
      { ...sepolia, hosts: ['sepolia.rpc.example.com'] },
    ])
    const miss = resolver.fromHost('127.0.0.1:8545') as { unknown: string; body: string }
    expect(miss.unknown).toBe('127.0.0.1')
    expect(JSON.parse(miss.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32601,
        message:
          'no network is served at host "127.0.0.1"; addresses: mainnet.rpc.example.com (mainnet), sepolia.rpc.example.com (sepolia), or /<network>/v3/<KEY> on any host; known networks: mainnet, sepolia',
      },
    })
    const unnamed = createNetworkResolver([mainnet, sepolia]).fromHost('localhost:8545') as { body: string }
    expect(JSON.parse(unnamed.body).error.message).toBe(
      'no network is served at host "localhost"; addresses: mainnet.<domain> (mainnet), sepolia.<domain> (sepolia), or /<network>/v3/<KEY> on any host; known networks: mainnet, sepolia',
    )
  })

  test('error: the 404 body names the network and lists the known ones', () => {
    expect(createNetworkResolver([sepolia, mainnet]).fromPath('x"<')).toEqual({
      unknown: 'x"<',
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"network \\"x\\"\\u003c\\" is not served here; known networks: mainnet, sepolia"}}',
    })
    expect(createNetworkResolver([sepolia, mainnet]).fromHost('goerli.example.com')).toMatchObject({
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"network \\"goerli\\" is not served here; known networks: mainnet, sepolia"}}',
    })
  })
})
