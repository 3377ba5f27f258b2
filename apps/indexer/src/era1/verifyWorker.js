// The era1 verification thread when the sources run (tests, benches): it loads verifyWorker.ts
// through tsx, package imports resolving to src/ as in the test runner. The build compiles
// verifyWorker.ts to dist/era1/verifyWorker.js, which the shipped command's thread runs instead.
import { register as registerHooks } from 'node:module'
import { register } from 'tsx/esm/api'

registerHooks(
  'data:text/javascript,export function resolve(specifier, context, next) { return next(specifier, { ...context, conditions: [...context.conditions, "uncle-rpc-source"] }) }',
)
register()
await import('./verifyWorker.ts')
