// Breaks apps-share-through-packages: app source importing another app.
import { keyLength } from '../../rpc/src/keys.js'

export const shown = keyLength / 4
