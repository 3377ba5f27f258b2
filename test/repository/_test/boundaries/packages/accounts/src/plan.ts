import { blocks } from '../../db/src/chain/blocks.js'

export const plan = (): string => blocks
