# tf-gpu-wizard: one JSON line per host result, written as each host answers.
# `tf-gpu-wizard fleet check` and `fleet watch` read these lines; a host that never answers has
# no line, and the wizard reports it as not answering when its time is up.
from __future__ import annotations

import json
import sys

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: tf_gpu_lines
    type: stdout
    short_description: one JSON line per host result, for tf-gpu-wizard fleet check and watch
    description:
        - Each task result is written at once as one JSON object on its own line (host, task,
          status, rc, stdout, stderr, msg); the play's recap as a last line.
"""


def _get(result, name):
    # ansible-core 2.19 names them result/host/task; older releases _result/_host/_task.
    value = getattr(result, name, None)
    return value if value is not None and not callable(value) else getattr(result, "_" + name, None)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "tf_gpu_lines"

    def _line(self, data):
        sys.stdout.write(json.dumps(data, default=str, ensure_ascii=True) + "\n")
        sys.stdout.flush()

    def _emit(self, status, result):
        res = _get(result, "result") or {}
        host, task = _get(result, "host"), _get(result, "task")
        self._line(
            {
                "host": host.get_name() if host is not None else None,
                "task": task.get_name() if task is not None else None,
                "status": status,
                "rc": res.get("rc"),
                "stdout": res.get("stdout"),
                "stderr": res.get("stderr"),
                "msg": res.get("msg"),
                "changed": bool(res.get("changed")),
            }
        )

    def v2_runner_on_ok(self, result):
        self._emit("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._emit("failed", result)

    def v2_runner_on_unreachable(self, result):
        self._emit("unreachable", result)

    def v2_runner_on_skipped(self, result):
        self._emit("skipped", result)

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        self._line({"recap": {h: stats.summarize(h) for h in hosts}})
