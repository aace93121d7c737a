"""Request rate limits: token buckets per client address, for every API request and, tighter, for the
requests that start costly work (a new game builds agents and may run their searches; an upload replays a
record). A request over its limit is refused with 429 and a Retry-After header before any work is done.

The buckets themselves are bounded: at most `MAX_CLIENTS` addresses are remembered (the least recently seen
is forgotten first, which only ever makes that client's bucket full again).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

MAX_CLIENTS = 4096


@dataclass(frozen=True)
class Rate:
    per_second: float
    burst: int


# every /api/ request, and the costly ones (POST /api/play, POST /api/records) once more
API_RATE = Rate(100.0, 400)
COSTLY_RATE = Rate(20.0, 100)


class RateLimiter:
    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, at)

    def wait_for(self, client: str) -> float:
        """0 and one token taken if `client` may go on now, else the seconds until it may."""
        now = time.monotonic()
        with self._lock:
            tokens, at = self._buckets.pop(client, (float(self.rate.burst), now))
            tokens = min(float(self.rate.burst), tokens + (now - at) * self.rate.per_second)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self.rate.per_second
            self._buckets[client] = (tokens, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
            return wait


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
