export { BaseError } from './BaseError.js'
