import { keys } from '../accounts/keys.js'

export const uncles = (): string => `uncles beside ${keys()}`
