"""The probe shipped to each host: `python3 tf-gpu-wizard-probe.pyz --out FILE`.

The zip holds the wizard's probe (wizard/, assets/) and the pure-Python packages it needs; it
detects the host it runs on and writes the profile whole (temp file, then rename).
"""

import argparse
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description="tf-gpu-wizard probe: this machine's facts as JSON")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from wizard.probe import detect
    from wizard.safe.atomic import write_text_atomic

    write_text_atomic(args.out, detect().to_json() + "\n", make_parents=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
