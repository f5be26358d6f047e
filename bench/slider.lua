-- wrk script for bench/http.py: every request moves a slider to a state nobody has asked
-- for yet, like a class of learners all dragging at once (the server's worst case: nothing
-- is cached). Each thread walks its own run of matches (three decimals) and k = 1..8, so
-- states repeat only after 8 000 requests per thread, far more than the caches hold.
local counter = 0
local threads = 0  -- counted in the main state by setup(); each thread gets its `offset`

function setup(thread)
  thread:set("offset", threads * 4001)
  threads = threads + 1
end

request = function()
  local i = counter + (offset or 0)
  counter = counter + 1
  local match = (i * 389 % 1000) / 1000  -- 389 is prime to 1000: every match once a lap
  local k = math.floor(i / 1000) % 8 + 1
  local path = string.format("/station/evidence?pred=skip&match=%.3f&k=%d", match, k)
  return wrk.format("GET", path)
end
