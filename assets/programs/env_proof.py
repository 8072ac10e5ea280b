"""tf-gpu-wizard: the verify's proof, kept with what it proved (env_proof.py prove|check cpu|gpu -- VERIFY).

prove cpu|gpu -- VERIFY...   the verify step's command: take the environment's state, run VERIFY (its
                             output is this one's, its exit status too), and when it passes record in
                             the environment (.tf-gpu-wizard-proof.json) what it proved, as it was
                             before VERIFY started:
                               - VERIFY itself, and the sha256 of the programs it names (and of the
                                 programs beside them, which they may run);
                               - the lock's sha256 (tf-gpu-wizard.lock.txt beside the environment);
                               - the environment's RECORD digests: one sha256 over every dist-info's
                                 RECORD (each names the sha256 of every file of its package);
                               - every file of site-packages and the interpreter: path, inode, size,
                                 mtime (and, apart, ctime and link count);
                               - gpu: the driver's version and the GPUs (name, UUID, PCI bus), from
                                 NVML (libnvidia-ml), else nvidia-smi.
check cpu|gpu -- VERIFY...   the verify step's check: exit 0 when that record holds now, so a re-apply
                             with nothing changed does not start TensorFlow again; otherwise one line
                             says what changed (a replaced file, another lock, a new driver, another
                             GPU) and the verify runs. Where only ctimes or link counts moved (uv
                             hard-links its cache into every environment it builds), every file is
                             proven against its RECORD by digest (installed_ok.py, beside this file,
                             with its cache) before the record is believed.
`apply --verify` removes the record first: the full proof runs again.
Runs in the target environment's Python (3.7 and newer), standard library only.
"""

import hashlib
import os
import subprocess
import sys
import sysconfig
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
# installed_ok.py is beside this file (plan.programs.NEEDS ships it); -P or PYTHONSAFEPATH, or a
# run by runpy, leave this file's folder off the path.
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from installed_ok import read_state, write_state  # noqa: E402

RECORD = os.path.join(sys.prefix, ".tf-gpu-wizard-proof.json")
LOCK = os.path.join(sys.prefix, "tf-gpu-wizard.lock.txt")
NVML_TIMEOUT_S = 10.0  # any NVML call can hang: then the GPUs are unknown and the proof runs again


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def site_roots():
    return sorted({os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")})


def walk():
    """(content, links, records): two sha256 over every file of site-packages and the interpreter,
    the first by what changes with its content (path, inode, size, mtime), the second by what a new
    hard link changes too (ctime, link count); and the RECORD files' paths."""
    content, links, records = hashlib.sha256(), hashlib.sha256(), []
    for root in site_roots():
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")  # Python's own caches
            for name in sorted(files):
                path = os.path.join(folder, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                content.update(
                    repr((path, st.st_ino, st.st_size, st.st_mtime_ns)).encode("utf-8", "surrogateescape")
                )
                links.update(repr((st.st_ctime_ns, st.st_nlink)).encode())
                if name == "RECORD" and folder.endswith(".dist-info"):
                    records.append(path)
    exe = os.stat(os.path.realpath(sys.executable))
    content.update(
        repr((sys.executable, exe.st_ino, exe.st_size, exe.st_mtime_ns)).encode("utf-8", "surrogateescape")
    )
    return content.hexdigest(), links.hexdigest(), records


def records_digest(records):
    h = hashlib.sha256()
    for path in sorted(records):
        try:
            with open(path, "rb") as f:
                h.update(path.encode("utf-8", "surrogateescape") + b"\0" + f.read() + b"\0")
        except OSError:
            h.update(path.encode("utf-8", "surrogateescape") + b"\0unreadable\0")
    return h.hexdigest()


def _nvml():
    import ctypes

    lib = ctypes.CDLL("libnvidia-ml.so.1")
    if lib.nvmlInit_v2() != 0:
        raise OSError("nvmlInit failed")
    try:
        buf = ctypes.create_string_buffer(96)
        if lib.nvmlSystemGetDriverVersion(buf, 96) != 0:
            raise OSError("no driver version")
        driver = buf.value.decode("ascii", "replace")
        count = ctypes.c_uint(0)
        if lib.nvmlDeviceGetCount_v2(ctypes.byref(count)) != 0:
            raise OSError("no device count")
        gpus = []
        for i in range(count.value):
            handle = ctypes.c_void_p()
            if lib.nvmlDeviceGetHandleByIndex_v2(i, ctypes.byref(handle)) != 0:
                raise OSError("no handle")
            fields = []
            for call in (lib.nvmlDeviceGetName, lib.nvmlDeviceGetUUID):
                if call(handle, buf, 96) != 0:
                    raise OSError("no name or UUID")
                fields.append(buf.value.decode("utf-8", "replace"))
            gpus.append(fields)
        return {"driver": driver, "gpus": gpus}
    finally:
        lib.nvmlShutdown()


def _nvidia_smi():
    query = ["--query-gpu=driver_version,name,uuid", "--format=csv,noheader"]
    for smi in ("nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi"):
        try:
            run = subprocess.run([smi, *query], capture_output=True, timeout=NVML_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if run.returncode != 0:
            continue
        rows = [
            [c.strip() for c in line.split(",")]
            for line in run.stdout.decode("utf-8", "replace").splitlines()
        ]
        rows = [r for r in rows if len(r) == 3]
        if rows:
            return {"driver": rows[0][0], "gpus": [r[1:] for r in rows]}
    return None


def gpu_state():
    """The driver's version and the GPUs, or None when neither NVML nor nvidia-smi answers in time."""
    if os.environ.get("TF_GPU_WIZARD_PROOF_NVML", "1") != "0":  # tests turn the library off
        found = []
        worker = threading.Thread(target=lambda: found.append(_nvml_or_none()), daemon=True)
        worker.start()
        worker.join(NVML_TIMEOUT_S)
        if not found:
            return None  # it hangs: nvidia-smi would hang on the same driver
        if found[0] is not None:
            return found[0]
    return _nvidia_smi()


def _nvml_or_none():
    try:
        return _nvml()
    except Exception:  # no library, no driver, a call that fails: nvidia-smi is asked instead
        return None


def state(mode, verify):
    """What the verify proves depends on, now."""
    programs = {}
    for arg in verify:
        if os.path.isfile(arg) and arg.endswith((".py", ".sh")):
            # The program and the ones beside it it may run (tf_gpu_check.py runs tf_cuda_libs.py):
            # a wizard update that changes any of them proves again.
            folder = os.path.dirname(os.path.abspath(arg))
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if name.endswith(".py") and path not in programs and os.path.isfile(path):
                    try:
                        programs[path] = sha256_file(path)
                    except OSError:
                        programs[path] = None
    content, links, records = walk()
    try:
        lock = sha256_file(LOCK)
    except OSError:
        lock = None
    out = {
        "verify": list(verify),
        "programs": programs,
        "lock": lock,
        "records": records_digest(records),
        "files": content,
        "links": links,
        "python": sys.version,
    }
    if mode == "gpu":
        out["gpu"] = gpu_state()
    return out


def write_record(data):
    write_state(RECORD, data)  # a read-only environment: the next apply proves it again


def read_record():
    return read_state(RECORD)  # a FIFO or a link is no record


def forget():
    try:
        os.unlink(RECORD)
    except OSError:
        pass


def prove(mode, verify):
    before = state(mode, verify)
    forget()  # an older record no longer holds while this run proves nothing yet
    sys.stdout.flush()
    code = subprocess.call(verify)
    if code == 0 and (mode != "gpu" or before.get("gpu") is not None):
        write_record(before)
    return code


WHAT = {
    "verify": "the verify's command",
    "programs": "a program the verify runs",
    "lock": "the lock (tf-gpu-wizard.lock.txt)",
    "records": "the installed packages (their RECORD files)",
    "files": "a file of the environment (replaced, added or removed)",
    "python": "the Python",
    "gpu": "the driver or the GPUs",
}


def contents_proven():
    """Every installed package's files against its RECORD, by digest (installed_ok.py's cache)."""
    names = []
    for root in site_roots():
        for entry in sorted(os.listdir(root)):
            if entry.endswith(".dist-info"):
                names.append(entry[: -len(".dist-info")].rsplit("-", 1)[0])
    if not names:
        return False
    return subprocess.call([sys.executable, os.path.join(HERE, "installed_ok.py"), "check", *names]) == 0


def check(mode, verify):
    record = read_record()
    if not record:
        print("no proof recorded in this environment: the verify runs")
        return 1
    now = state(mode, verify)
    if mode == "gpu" and now.get("gpu") is None:
        print("neither NVML nor nvidia-smi answered: the GPUs are not known, the verify runs")
        return 1
    changed = [WHAT[k] for k in WHAT if k in now and record.get(k) != now[k]]
    if changed:
        print("changed since the last proof: " + "; ".join(changed) + ": the verify runs")
        return 1
    if record.get("links") != now["links"] and not contents_proven():
        print("files of the environment differ from their RECORD: the verify runs")
        return 1
    gpu = now.get("gpu") or {}
    print(
        f"proven before with the same lock ({(now['lock'] or 'none')[:16]}), packages, files"
        + (
            f", driver {gpu.get('driver')} and GPUs {', '.join(g[0] for g in gpu.get('gpus', []))}"
            if gpu
            else ""
        )
        + ": TensorFlow not started again (apply --verify proves it again)"
    )
    return 0


def main(argv):
    if len(argv) >= 4 and argv[0] in ("prove", "check") and argv[1] in ("cpu", "gpu") and argv[2] == "--":
        return (prove if argv[0] == "prove" else check)(argv[1], argv[3:])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
