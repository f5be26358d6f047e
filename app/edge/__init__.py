"""The process's edge: how the station meets the network and the machine.

- `protocol.py`: uvicorn's h11 protocol with a request-head limit and timeout, and no Nagle;
- `security.py`: the headers every answer carries (the page's policy, no framing but the
  station's own embed);
- `allocator.py`: glibc's malloc arenas capped, so memory stops growing once caches are full;
- `collector.py`: the young garbage generations collected between requests, not during them.
"""
