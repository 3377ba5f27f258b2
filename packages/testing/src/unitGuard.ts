import childProcess from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'
import net from 'node:net'

// Setup file of the vitest unit project (vitest.config.ts): a unit test is pure logic, so
// listening, connecting (Postgres, Redis, HTTP, WebSocket: every client connects through
// net.Socket) and starting a child process throw at once, naming the rule, instead of leaving a
// server-starting test in the quick loop.

function refuse(what: string): never {
  throw new Error(
    `${what} in the unit project: unit tests start no server, database or child process. ` +
      'Rename the test file without `.unit` (it then runs with `npm test`), or test the logic without I/O.',
  )
}

net.Server.prototype.listen = function listen(): never {
  refuse('a server listened')
}
net.Socket.prototype.connect = function connect(): never {
  refuse('a socket connected')
}
for (const name of ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const) {
  Object.assign(childProcess, { [name]: () => refuse(`child_process.${name}`) })
}
// Named imports of node:child_process (`import { spawn } …`) see the patched functions too.
syncBuiltinESMExports()
