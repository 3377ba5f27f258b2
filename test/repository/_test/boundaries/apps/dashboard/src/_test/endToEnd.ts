// Allowed: a test may drive another app (end-to-end).
import { keyLength } from '../../../rpc/src/keys.js'

export const checked = keyLength
