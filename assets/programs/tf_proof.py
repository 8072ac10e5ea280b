"""tf-gpu-wizard: TensorFlow imported once for two proofs (usage: tf_proof.py cpu HELLO | hello PATH ARG...).

cpu HELLO          the verify step of a CPU plan: import TensorFlow and multiply two matrices on the
                   CPU (its exit status is this proof's). Then, in the same process, the hello
                   script HELLO (the wizard's copy of it) trains its model with --cpu; when it passes,
                   that is recorded in the environment (.tf-gpu-wizard-proofs.json): the script's
                   sha256 and the environment's fingerprint taken before TensorFlow was imported.
                   A hello script that fails here fails nothing: its own step runs it again.
hello PATH ARG...  the hello step's check: exit 0 when PATH's sha256 and ARG are the ones recorded and
                   the environment has not changed since (every file under site-packages and the
                   interpreter: same names, inode, size and mtime; compiled .pyc caches left out);
                   otherwise run `python PATH ARG...` here, as the student will, and that is the
                   proof. Not the ctime: uv hard-links its cache into every environment it builds,
                   and a new link sets the ctime of the file it links (TensorFlow started again for
                   nothing when a second environment was built from the same cache).
Why: the first import of TensorFlow is most of a CPU plan's time (seconds of module loading); the
hello step then proves nothing the verify step's run of the same file in the same environment did
not. Runs in the target environment's Python (3.7 and newer), standard library only (and installed_ok.py
beside it, for its state files).
"""

import hashlib
import os
import runpy
import sys
import sysconfig
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
# installed_ok.py is beside this file (plan.programs.NEEDS ships it); -P or PYTHONSAFEPATH, or a
# run by runpy, leave this file's folder off the path.
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from installed_ok import read_state, write_state  # noqa: E402

RECORD = os.path.join(sys.prefix, ".tf-gpu-wizard-proofs.json")


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fingerprint():
    """One sha256 over every file of the environment's packages (path, inode, size, mtime).

    A changed, added or removed package file changes this (a write sets the mtime; a reinstall makes
    a new inode); Python's own .pyc caches and a new hard link to a file (uv's cache building another
    environment: it sets the ctime only) do not. That each file's bytes are the ones its RECORD
    names is installed_ok.py's proof (digests, and a ctime tripwire for a write that sets the mtime
    back), which the plan runs in the step before."""
    entries = []
    roots = sorted({os.path.realpath(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")})
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                try:
                    st = os.lstat(os.path.join(folder, name))
                except OSError:
                    continue
                entries.append((folder, name, st.st_ino, st.st_size, st.st_mtime_ns))
    exe = os.stat(os.path.realpath(sys.executable))
    entries.append((sys.executable, exe.st_size, exe.st_mtime_ns, exe.st_ino))
    return hashlib.sha256(repr(entries).encode("utf-8", "surrogateescape")).hexdigest()


def write_record(data):
    write_state(RECORD, data)  # a read-only environment: the hello step then runs its script itself


def read_record():
    return read_state(RECORD)


def run_script(path, args):
    """Run a script as `python PATH ARGS` would, in this process; True when it exits 0."""
    saved = sys.argv
    sys.argv = [path, *args]
    try:
        runpy.run_path(path, run_name="__main__")
        return True
    except SystemExit as stop:
        if stop.code not in (None, 0):
            print(stop.code if isinstance(stop.code, str) else f"exit status {stop.code}", file=sys.stderr)
        return stop.code in (None, 0)
    except Exception:
        traceback.print_exc()
        return False
    finally:
        sys.argv = saved
        sys.stdout.flush()


def cpu(hello):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    before = fingerprint()
    write_record({})  # an older record no longer holds while this run changes nothing yet proven
    import tensorflow as tf

    print("TensorFlow", tf.__version__)
    a = tf.random.uniform((512, 512))
    b = tf.matmul(a, a)
    print("matmul on", b.device, "ok, sum =", float(tf.reduce_sum(b)), flush=True)
    try:
        sha = file_sha256(hello)
    except OSError as exc:
        print(f"hello script {hello}: {exc.strerror}; the hello step runs it itself")
        return 0
    print(f"--- the hello script, in this process: {hello} --cpu", flush=True)
    # `before` is what the hello step's check compares with: a file changed during this run or
    # after it voids the record the same way.
    if run_script(hello, ["--cpu"]):
        write_record({"sha256": sha, "args": ["--cpu"], "fingerprint": before, "tensorflow": tf.__version__})
    else:
        print("the hello script did not pass here; the hello step runs it again and says why")
    return 0


def hello(path, args):
    record = read_record()
    try:
        sha = file_sha256(path)
    except OSError as exc:
        print(f"{path}: {exc.strerror}", file=sys.stderr)
        return 2
    same = record.get("sha256") == sha and record.get("args") == args
    if same and record.get("fingerprint") == fingerprint():
        print(f"{path} (sha256 {sha[:16]}) trained its model in this environment in the verify step's run,")
        print("and no file of the environment changed since: proven without a second start of TensorFlow")
        return 0
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, path, *args])
    return 1  # not reached


def main(argv):
    if len(argv) == 2 and argv[0] == "cpu":
        return cpu(argv[1])
    if len(argv) >= 2 and argv[0] == "hello":
        return hello(argv[1], argv[2:])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
