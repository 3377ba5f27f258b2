export { BaseError } from './BaseError.js'
export { NonRetryableError } from './NonRetryableError.js'
export { describeError } from './describeError.js'
