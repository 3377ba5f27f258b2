-- wrk script of bench/rpc.ts: POSTs JSON-RPC bodies to wrk's URL, each request's body picked at
-- random from a file of bodies (one per line; a file of one line sends that body every time).
--   wrk -t2 -c64 -d5s -s bench/wrk/bodies.lua http://127.0.0.1:8545/v3/<key> -- <bodies file> ['name: value' ...]
-- Every request is formatted once in init(), so picking one costs wrk a table lookup. done()
-- prints one JSON line (microseconds) that bench/rpcLoad.ts reads.

local requests = {}
local count = 0
local threads = {}

function setup(thread)
  thread:set("seed", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  local headers = { ["Content-Type"] = "application/json" }
  for i = 2, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    if name then headers[name] = value end
  end
  for line in io.lines(args[1]) do
    if line ~= "" then
      count = count + 1
      requests[count] = wrk.format("POST", nil, headers, line)
    end
  end
  if count == 0 then error("no bodies in " .. args[1]) end
  math.randomseed(os.time() * 1000 + (seed or 0))
end

function request()
  if count == 1 then return requests[1] end
  return requests[math.random(count)]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect, e.read, e.write, e.timeout))
end
