export { createJsonRpcHandler } from './dispatch.js'
export type { JsonRpcErrorOptions } from './errors.js'
export {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcError,
  jsonRpcErrorCodes,
  LimitExceededError,
  MethodNotFoundError,
  NotFoundError,
  ParseError,
  RejectedError,
  ServerError,
} from './errors.js'
export { goHtmlEscape, goJsonString, goJsonStringify } from './goJson.js'
export type { ArgDecoder, BlockTag } from './params.js'
export { decodeBlockNumberOrTag, decodeBool, decodeHash, decodeUint, optionalArg, positionalParams } from './params.js'
export type { RequestKind } from './parse.js'
export { parseMessage, readRequest } from './parse.js'
export type { RawTokens } from './rawId.js'
export { parseWithRawStrings, scanRawTokens } from './rawId.js'
export {
  batchBody,
  bodyText,
  errorObjectResponse,
  errorResponse,
  internalErrorResponse,
  isRawJson,
  rawJson,
  requestBody,
  resultResponse,
} from './response.js'
export { ResultBody } from './resultBody.js'
export type {
  Answered,
  CreateJsonRpcHandlerParameters,
  HandleOptions,
  JsonRpcHandler,
  JsonRpcMethod,
  JsonRpcMethods,
  ParsedEntry,
  ParsedMessage,
  RawJson,
  Tally,
} from './types.js'
