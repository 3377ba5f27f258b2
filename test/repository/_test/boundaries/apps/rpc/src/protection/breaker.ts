// Breaks rpc-protection-is-low: a protection importing a layer above it.
import { lookups } from '../reads/store.js'

export const threshold = lookups * 2
