// The byte-level wire beneath node:http and ws, with no JSON-RPC knowledge: what the rpc answers
// on its hot path is read and written here as bytes. README.md states what it promises under abuse.
export { answerBytes } from './answerBytes.js'
export { ClientAbortedError } from './errors.js'
export type { Body, LazyBody } from './lazyBody.js'
export { bodyBytes, bodyLength, writeBody } from './lazyBody.js'
export type { FastPath } from './fastHttp/fastPath.js'
export type { FastAnswer, FastPathDeps, FastPathOptions, HeadCheck } from './fastHttp/fastPathDeps.js'
export { attachFastPath, defaultRequestsPerTurn } from './fastHttp/fastPath.js'
export type { FastRequest, ParseLimits } from './fastHttp/parseRequest.js'
export type { BodyRead, DiscardBound } from './httpBody.js'
export { discardBody, isJsonContentType, readBody } from './httpBody.js'
export type { ClientFrame } from './wsFrames.js'
export { moreBytes, readFrame, textFrame, textFrameLength, writeTextFrame, wsTakes } from './wsFrames.js'
