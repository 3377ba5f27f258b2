import { blocks } from '../chain/blocks.js'

export const keys = (): string => `api_keys beside ${blocks}`
