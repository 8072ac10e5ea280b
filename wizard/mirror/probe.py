"""A short speed probe: which package index answers fastest from here.

Each index gets one small GET with a time limit (for a PyPI-style index the simple page of
`pip`, read up to 64 KiB; for a conda channel the start of its noarch repodata), all at the
same time, so the whole probe takes at most about `timeout` seconds. An index that does not
answer in time is "no answer", never an error. Proxies set in the environment are used,
as pip would use them.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from wizard.mirror.secret import mask_text, masked

TIMEOUT = 3.0
LIMIT = 64 * 1024
CHUNK = 8 * 1024


@dataclass(frozen=True)
class Target:
    name: str  # "default" or a catalogue name
    url: str  # the index or channel
    kind: str = "pypi"  # pypi | conda

    @property
    def probe_url(self) -> str:
        base = self.url.rstrip("/")
        return f"{base}/noarch/repodata.json" if self.kind == "conda" else f"{base}/pip/"


@dataclass(frozen=True)
class ProbeResult:
    target: Target
    ok: bool
    seconds: float  # until the body (or LIMIT bytes of it) was read, or until it gave up
    received: int
    error: str = ""

    @property
    def name(self) -> str:
        return self.target.name

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.target.name,
            "url": masked(self.target.url),
            "kind": self.target.kind,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "received": self.received,
            "error": mask_text(self.error),
        }


Opener = Callable[[str, float], object]


def _open(url: str, timeout: float) -> object:
    request = urllib.request.Request(url, headers={"User-Agent": "tf-gpu-wizard mirror probe"})
    return urllib.request.urlopen(request, timeout=timeout)


def probe_one(
    target: Target,
    *,
    timeout: float = TIMEOUT,
    limit: int = LIMIT,
    clock: Callable[[], float] = time.monotonic,
    opener: Opener = _open,
) -> ProbeResult:
    """GET the target's probe URL; ok when a 2xx body (up to `limit` bytes) arrived within `timeout`."""
    started = clock()
    received = 0
    try:
        with opener(target.probe_url, timeout) as response:  # type: ignore[attr-defined]
            while received < limit:
                if clock() - started > timeout:
                    return ProbeResult(target, False, clock() - started, received, "timeout")
                chunk = response.read(min(CHUNK, limit - received))
                if not chunk:
                    break
                received += len(chunk)
    except Exception as exc:  # every network failure is "no answer" with its reason
        reason = getattr(exc, "reason", None) or exc
        return ProbeResult(target, False, clock() - started, received, f"{type(exc).__name__}: {reason}")
    seconds = clock() - started
    if seconds > timeout:
        return ProbeResult(target, False, seconds, received, "timeout")
    return ProbeResult(target, True, seconds, received)


def probe_all(
    targets: Sequence[Target], *, timeout: float = TIMEOUT, limit: int = LIMIT
) -> list[ProbeResult]:
    """Every target at once; the answers that came, fastest first, then the ones that did not."""
    if not targets:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(targets))) as pool:
        results = list(pool.map(lambda tg: probe_one(tg, timeout=timeout, limit=limit), targets))
    return sorted(results, key=lambda r: (not r.ok, r.seconds))
