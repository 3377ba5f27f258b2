export type { ListenParameters } from './listen.js'
export { listen } from './listen.js'
export { sleep } from './sleep.js'
export { untilSignal } from './untilSignal.js'
