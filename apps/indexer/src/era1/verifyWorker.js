// Entry of the era1 verification thread: the sources are TypeScript, run through tsx as the CLI is.
import { register } from 'tsx/esm/api'

register()
await import('./verifyWorkerMain.ts')
