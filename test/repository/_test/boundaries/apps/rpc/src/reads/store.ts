// Breaks rpc-reads-below-methods: the read engine importing the method registry's code.
import { maxIndex } from '../methods/context.js'

export const lookups = maxIndex + 1
