-- The bench's requests for wrk (bench/wrk-load.mjs runs it): the method, path, headers and body
-- come from the environment; `{customer}` in the path is replaced per request, half by a known
-- customer (with a stored history), half by one never seen, as bench/load.mjs does.
local method = os.getenv("BENCH_METHOD") or "GET"
local template = os.getenv("BENCH_PATH") or "/"
local body = os.getenv("BENCH_BODY")
local known = tonumber(os.getenv("BENCH_KNOWN") or "0")
local fresh = tonumber(os.getenv("BENCH_FRESH") or "1")
local width = os.getenv("BENCH_WIDTH") or "9"
local spread = template:find("{customer}", 1, true) ~= nil
local headers = {}
for name, value in (os.getenv("BENCH_HEADERS") or ""):gmatch("([^:\n]+): ([^\n]*)") do
  headers[name] = value
end
if body == "" then body = nil end

-- Each thread's Lua state seeds its own generator.
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000003)

local function customer()
  if known > 0 and math.random() < 0.5 then
    return string.format("c%0" .. width .. "d", math.random(0, known - 1))
  end
  return string.format("f%0" .. width .. "d", math.random(0, fresh - 1))
end

function request()
  local path = template
  if spread then path = (template:gsub("{customer}", customer())) end
  return wrk.format(method, path, headers, body)
end

-- One JSON line after wrk's own report: what bench/wrk-load.mjs reads.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\n{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
