#!/usr/bin/env node
// The one command-line entry point. The sources are TypeScript run through tsx, so a clone works
// after `npm ci` with no build step. Written for any Node, so that an older one gets a clear
// error, not a crash.
const required = 24
const major = Number(process.versions.node.split('.')[0])
if (major < required) {
  process.stderr.write(`uncle-rpc: Node.js ${required} or newer is required; this is Node.js ${process.versions.node} (${process.execPath})\n`)
  process.exit(1)
}
const { register } = await import('tsx/esm/api')
register()
await import('../src/main.ts')
