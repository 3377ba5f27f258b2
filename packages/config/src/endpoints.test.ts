import { describe, expect, test } from 'vitest'
import { endpointUrls, networkBaseUrl } from './endpoints.js'

describe('endpointUrls', () => {
  test('default: /v3/<key> and /ws/v3/<key>, ws for http and wss for https', () => {
    expect(endpointUrls('http://127.0.0.1:8545/', 'K')).toEqual({ http: 'http://127.0.0.1:8545/v3/K', ws: 'ws://127.0.0.1:8545/ws/v3/K' })
    expect(endpointUrls('https://rpc.example.com/sepolia', 'K')).toEqual({ http: 'https://rpc.example.com/sepolia/v3/K', ws: 'wss://rpc.example.com/sepolia/ws/v3/K' })
  })
})

describe('networkBaseUrl', () => {
  test('default: the publicUrl first, else the rpc base, by path when several networks share it', () => {
    expect(networkBaseUrl({ name: 'mainnet', publicUrl: 'https://uncles.mycompany.com/' }, 'http://127.0.0.1:8545', true)).toBe('https://uncles.mycompany.com')
    expect(networkBaseUrl({ name: 'mainnet' }, 'http://127.0.0.1:8545', false)).toBe('http://127.0.0.1:8545')
    expect(networkBaseUrl({ name: 'sepolia' }, 'http://127.0.0.1:8545/', true)).toBe('http://127.0.0.1:8545/sepolia')
  })
})
