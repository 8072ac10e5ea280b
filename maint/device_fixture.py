"""For the day a GPU machine is lent: keep its real evidence as a test fixture.

    python -m maint.device_fixture [--out tests/fixtures/device/NAME] [--seconds 20]

1. `tf-gpu-wizard detect --dump OUT/dump --json` -> OUT/profile.json (the real NVML path, recorded)
2. a PyTorch matmul load on GPU 0 (the lent machine has PyTorch and nvidia-ml-py, no TensorFlow, no
   network) while `tf-gpu-wizard monitor --json` reads it -> OUT/monitor.jsonl, OUT/load.json
3. `detect --from OUT/dump --json` must equal OUT/profile.json (written to OUT/summary.json)

tests/test_device_fixtures.py then replays every fixture under tests/fixtures/device through
`detect --from` and checks the readings, so the real NVML path is tested without the device.
Nothing here needs a network; the dump masks the user's name and secrets as `detect --dump` does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in the lent machine's Python: one line of JSON when the load starts, one when it ends.
LOAD = r"""
import json, sys, time
try:
    import torch
except ImportError as exc:
    print(json.dumps({"event": "error", "error": f"no PyTorch: {exc}"}), flush=True)
    sys.exit(2)
if not torch.cuda.is_available():
    print(json.dumps({"event": "error", "error": "torch.cuda.is_available() is False"}), flush=True)
    sys.exit(3)
seconds = float(sys.argv[1])
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.float32)
b = torch.randn(n, n, device="cuda", dtype=torch.float32)
torch.cuda.synchronize()
print(json.dumps({"event": "start", "device": torch.cuda.get_device_name(0)}), flush=True)
start, count = time.perf_counter(), 0
while time.perf_counter() - start < seconds:
    a @ b
    count += 1
    if count % 10 == 0:
        torch.cuda.synchronize()
torch.cuda.synchronize()
took = time.perf_counter() - start
print(json.dumps({"event": "end", "matmuls": count, "seconds": round(took, 3),
                  "tflops": round(2 * n**3 * count / took / 1e12, 2)}), flush=True)
"""


def wizard(*args: str) -> list[str]:
    return [sys.executable, "-m", "wizard", *args]


def run(out: Path, seconds: float, load_python: str) -> int:
    out.mkdir(parents=True, exist_ok=True)
    env_note: dict[str, object] = {}
    detect = subprocess.run(
        wizard("detect", "--dump", str(out / "dump"), "--json"), capture_output=True, text=True, cwd=ROOT
    )
    if detect.returncode != 0:
        print(f"detect --dump failed: {detect.stderr.strip()[:500]}", file=sys.stderr)
        return 1
    (out / "profile.json").write_text(detect.stdout, encoding="utf-8")
    replay = subprocess.run(
        wizard("detect", "--from", str(out / "dump"), "--json"), capture_output=True, text=True, cwd=ROOT
    )
    env_note["replay_equal"] = replay.returncode == 0 and replay.stdout == detect.stdout

    load = subprocess.Popen(
        [load_python, "-c", LOAD, str(seconds + 2)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert load.stdout is not None
    first = load.stdout.readline()
    started = json.loads(first) if first.strip().startswith("{") else {"event": "error", "error": first}
    readings: list[str] = []
    if started.get("event") == "start":
        count = max(2, int(seconds / 0.5))
        mon = subprocess.run(
            wizard("monitor", "--json", "--interval", "0.5", "--count", str(count)),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=seconds * 3 + 30,
        )
        readings = [line for line in mon.stdout.splitlines() if line.strip()]
        env_note["monitor_exit"] = mon.returncode
    rest, err = load.communicate(timeout=seconds * 3 + 60)
    events = [started] + [json.loads(line) for line in rest.splitlines() if line.strip().startswith("{")]
    (out / "load.json").write_text(json.dumps(events, indent=1) + "\n", encoding="utf-8")
    (out / "monitor.jsonl").write_text("".join(r + "\n" for r in readings), encoding="utf-8")
    env_note.update(
        load_exit=load.returncode, readings=len(readings), when=time.strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    (out / "summary.json").write_text(json.dumps(env_note, indent=1) + "\n", encoding="utf-8")
    if started.get("event") != "start":
        print(f"no GPU load ran: {started.get('error') or err.strip()[:300]}", file=sys.stderr)
        return 2
    print(f"fixture written to {out}: {len(readings)} readings, replay equal: {env_note['replay_equal']}")
    return 0 if env_note["replay_equal"] else 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "device" / "lent")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--load-python", default=sys.executable, help="the Python that has PyTorch")
    args = parser.parse_args(argv)
    return run(args.out, args.seconds, args.load_python)


if __name__ == "__main__":
    raise SystemExit(main())
