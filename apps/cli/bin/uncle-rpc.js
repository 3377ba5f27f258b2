#!/usr/bin/env node
// The one command-line entry point: runs the compiled command line (dist/, made by `npm run build`,
// which `npm ci` runs). Written for any Node, so that an older one gets a clear error, not a crash.
const required = 24
const major = Number(process.versions.node.split('.')[0])
if (major < required) {
  process.stderr.write(`uncle-rpc: Node.js ${required} or newer is required; this is Node.js ${process.versions.node} (${process.execPath})\n`)
  process.exit(1)
}
try {
  await import('../dist/main.js')
} catch (error) {
  // Note: only the entry's own absence means "not built"; any other missing module is a real fault.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/main.js')) throw error
  process.stderr.write('uncle-rpc: the compiled files are missing (apps/cli/dist): run `npm run build` (npm ci runs it)\n')
  process.exit(1)
}
