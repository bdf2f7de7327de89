-- The bench's requests for wrk (bench/wrk-load.mjs runs it): the method, path, headers and body
-- come from the environment; `{customer}` in the path is replaced per request, half by a known
-- customer (with a stored history), half by one never seen, and each `{uuid}` in the path or the
-- body by a fresh random UUID (a new visitor's new choice, a new customer's channel change), as
-- bench/load.mjs does.
local method = os.getenv("BENCH_METHOD") or "GET"
local template = os.getenv("BENCH_PATH") or "/"
local body = os.getenv("BENCH_BODY")
local known = tonumber(os.getenv("BENCH_KNOWN") or "0")
local fresh = tonumber(os.getenv("BENCH_FRESH") or "1")
local width = os.getenv("BENCH_WIDTH") or "9"
local spread = template:find("{customer}", 1, true) ~= nil
local fresh_ids = body ~= nil and body:find("{uuid}", 1, true) ~= nil
local fresh_path = template:find("{uuid}", 1, true) ~= nil
local headers = {}
for name, value in (os.getenv("BENCH_HEADERS") or ""):gmatch("([^:\n]+): ([^\n]*)") do
  headers[name] = value
end
if body == "" then body = nil end

-- Each thread's Lua state seeds its own generator: from BENCH_SEED, which bench/wrk-load.mjs draws
-- anew for each wrk it starts, so that the warm-up and the measured part never repeat an id.
math.randomseed((tonumber(os.getenv("BENCH_SEED") or "0") or 0)
  + os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000003)

local function customer()
  if known > 0 and math.random() < 0.5 then
    return string.format("c%0" .. width .. "d", math.random(0, known - 1))
  end
  return string.format("f%0" .. width .. "d", math.random(0, fresh - 1))
end

-- A version 4 UUID, its 122 random bits drawn in parts that a double holds exactly.
local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%06x%06x",
    math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    0x8000 + math.random(0, 0x3fff), math.random(0, 0xffffff), math.random(0, 0xffffff))
end

function request()
  local path = template
  if spread then path = (template:gsub("{customer}", customer())) end
  if fresh_path then path = (path:gsub("{uuid}", uuid)) end
  local sent = body
  if fresh_ids then sent = (body:gsub("{uuid}", uuid)) end
  return wrk.format(method, path, headers, sent)
end

-- One JSON line after wrk's own report: what bench/wrk-load.mjs reads.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\n{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
