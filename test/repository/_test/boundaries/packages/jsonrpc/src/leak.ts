import { table } from '../../db/src/table.js'

export const leak = (): string => table
