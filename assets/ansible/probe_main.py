"""The wizard shipped to each host: `python3 tf-gpu-wizard-probe.pyz --out FILE` (the probe) or
`python3 tf-gpu-wizard-probe.pyz monitor --json [--count N] [--interval S]` (`fleet watch`).

The zip holds the wizard's probe and monitor (wizard/, assets/) and the pure-Python packages they
need; the probe detects the host it runs on and writes the profile whole (temp file, then rename);
the monitor writes the same JSON lines as `tf-gpu-wizard monitor --json`.
"""

import argparse
import sys


def monitor(argv: list) -> int:
    parser = argparse.ArgumentParser(prog="tf-gpu-wizard-probe.pyz monitor")
    parser.add_argument("--json", action="store_true", required=True)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--lang", choices=("en", "zh"), default=None)  # the board's, for its sentences
    args, _ = parser.parse_known_args(argv)  # a newer board's options: this host's zip skips them
    import time

    if args.lang:
        from wizard.text import set_language

        set_language(args.lang)

    from wizard.monitor.jsonlines import sample_line, source_header
    from wizard.monitor.sampler import make_sampler

    sampler = make_sampler(None)
    try:
        header = source_header(sampler.info)
        for n in range(max(1, args.count)):
            if n:
                time.sleep(max(0.1, args.interval))
            sys.stdout.write(sample_line(sampler.sample(), header))
            sys.stdout.flush()
            header = None
    finally:
        sampler.close()
    return 0


def main() -> int:
    if sys.argv[1:2] == ["monitor"]:
        return monitor(sys.argv[2:])
    parser = argparse.ArgumentParser(description="tf-gpu-wizard probe: this machine's facts as JSON")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from wizard.probe import detect
    from wizard.safe.atomic import write_text_atomic

    write_text_atomic(args.out, detect().to_json() + "\n", make_parents=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
