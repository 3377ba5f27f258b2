// Test-only: the TCP proxy lives in @uncle-rpc/testing (the indexer's tests use it too).
export { createTcpProxy, type TcpProxy } from '@uncle-rpc/testing'
