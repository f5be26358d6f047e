-- wrk script for bench/http.py: every request moves a slider, like a class of learners.
-- match sweeps 0.00..0.99 at k = 4, 3, 5: 300 queries per thread before one repeats, more
-- than the server's lru caches hold (256), so most requests are computed afresh.
local counter = 0

request = function()
  local i = counter
  counter = counter + 1
  local ks = { 4, 3, 5 }
  local k = ks[math.floor(i / 100) % 3 + 1]
  local path = string.format("/station/evidence?pred=skip&match=%.2f&k=%d", (i % 100) / 100, k)
  return wrk.format("GET", path)
end
