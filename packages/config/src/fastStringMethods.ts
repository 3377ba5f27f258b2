/**
 * Gives String.prototype fast properties again after a class that extends String was declared.
 * ioredis 6 declares one (VerbatimString, for RESP3 replies) when it loads, and V8 then keeps
 * String.prototype's properties in a dictionary: every string method call in the process
 * (charCodeAt, indexOf, slice, startsWith: the request parsers and the answer cache) was then
 * compiled as a generic property load, 6% of a cached WebSocket answer's server time in a profile.
 * An object made from String.prototype that is given a property of its own makes V8 set its
 * prototype up as a fast one again.
 */
export function fastStringMethods(): void {
  const probe = Object.create(String.prototype) as { made?: boolean }
  probe.made = true
}
