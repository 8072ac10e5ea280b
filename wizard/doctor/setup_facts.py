"""Facts about the setup a log was written in, beside the versions and codes of wizard.doctor.facts.

    setup = read_setup(text)       a SetupFacts: every field may stay empty (not in the text)
    setup.lines()                  (key, value) pairs; keys are doctor.fact.setup.* texts

What the text says about where the program ran and what it was given: the CUDA it was built for
(PyTorch's "CUDA used to build PyTorch", a build_info's cuda_version), a driver version named as
such, the Windows driver a WSL2 text names beside the version of the nvidia-smi it ran, the
`docker run` / `podman run` that started a container for the GPU (its device nodes, a CUDA or GPU
image; its continuation lines joined) and whether
anything in it gives the container the NVIDIA driver, a scheduler job's request that names no GPU,
and the text saying no GPU was found or can be used. Each keeps the line it was read from (number,
text): the evidence a decision shows. Values are log data: shown only through wizard.safe.display.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Evidence = tuple[int, str]  # (line number, from 1; the line, stripped and cut)
LINE_CHARS = 200
VALUE_CHARS = 80

_CUDA_BUILT = re.compile(
    r"\bCUDA used to build \w+\s*:\s*([0-9]{1,2}\.[0-9]{1,2})\b"
    r"|\bbuilt (?:with|for|against) CUDA\s*:?\s*v?([0-9]{1,2}\.[0-9]{1,2})\b"
    r"|['\"]cuda_version['\"]\s*:\s*['\"]([0-9]{1,2}\.[0-9]{1,2})\b",
    re.I,
)
_DRIVER = re.compile(r"\bdriver version\s*[:：=]\s*([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]{2})?)\b", re.I)
_WINDOWS_DRIVER = re.compile(
    r"\bWindows\s+(?:NVIDIA\s+)?(?:GPU\s+)?driver(?:\s+version)?\s*[:：=]?\s*v?([0-9]{3}\.[0-9]{2})\b"
    # i35i: Game Ready and Studio are the names of NVIDIA's Windows drivers (its Linux ones carry neither);
    # people shorten 560.70 to 560.7.
    r"|\b(?:Game[ -]Ready|Studio)\s+Driver(?:\s+Version)?\s*[:：=]?\s*v?([0-9]{3}\.[0-9]{1,2})\b",
    re.I,
)
# nvidia-smi's own version: its table's header ("NVIDIA-SMI 535.154.05  Driver Version: ...").
_SMI_VERSION = re.compile(r"\bNVIDIA-SMI\s*[:：]?\s*([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]{2})?)\b")
# A container started by hand (not nvidia-docker run: its own name gives the GPU); Apptainer's (and
# Singularity's, its former name) exec, run and shell, global options before them ("singularity -s exec").
_APPTAINER_RUN = r"(?:singularity|apptainer)\s+(?:-{1,2}\w[\w-]*\s+)*(?:exec|run|shell)\b"
_RUN = re.compile(r"(?<![\w-])(?:docker|podman)\s+run\b|(?<![\w-])" + _APPTAINER_RUN)
# Its command word, where --nv goes (after the global options: "singularity -s exec --nv ...").
_APPTAINER_VERB = re.compile("^" + _APPTAINER_RUN)
_WHOLE_COMMAND = 600  # characters: a longer command is not offered whole (the fix names the option)
# What gives a container the NVIDIA driver's files (the NVIDIA Container Toolkit's options, CDI,
# nvidia-docker 1.x's driver volume): device nodes alone (--device /dev/nvidia0) bring no libcuda.
_GIVES_DRIVER = re.compile(
    r"--gpus\b|--runtime[= ]\s*nvidia\b|--device[= ]\s*nvidia\.com/|NVIDIA_VISIBLE_DEVICES|"
    # Apptainer binds the host driver's libraries and device nodes with --nv (or --nvccli)
    r"\s--nv(?:ccli)?\b|"
    r"--volume-driver[= ]\s*nvidia|(?:^|\s)(?:-v|--volume|--mount)[= ]\s*\S*(?:nvidia|libcuda)",
    re.I,
)
# The command is meant for the GPU: it passes the GPU's device nodes, or runs a CUDA / GPU image.
_FOR_GPU = re.compile(r"--device[= ]\s*/dev/nvidia|cuda|[:-]gpus?\b|-gpu-", re.I)
# The program in the container looking for the driver's own libraries (which the toolkit mounts): the
# container was meant for the GPU, whatever its image is called.
_DRIVER_LIB_MISSING = re.compile(
    r"\blib(?:cuda|nvidia-ml)\.so(?:\.[0-9]+)*(?::\s?|\s)cannot open shared object file", re.I
)
_SCREEN = 15  # lines: a run whose output the failure is
# A run in the background prints nothing where it is started: its output is not the line below it.
_DETACHED = re.compile(r"(?<!\S)(?:-d|--detach)(?!\S)|(?<!\S)-[a-zA-Z]*d[a-zA-Z]*(?!\S)")
# Anywhere in the text: the toolkit or nvidia-docker was used, so the run above may not be the one.
_TOOLKIT_USED = re.compile(
    r"\bnvidia-docker\b|--gpus\b|--runtime[= ]?nvidia\b|NVIDIA_VISIBLE_DEVICES"
    r"|nvidia-container-(?:toolkit|runtime|cli)|--device[= ]nvidia\.com/|\s--nv(?:ccli)?\b"
    # --nv said as Apptainer's (Singularity's) environment variable
    r"|\b(?:APPTAINER|SINGULARITY)_NV(?:CCLI)?\s*=\s*(?:1|true|yes)\b",
    re.I,
)
# A scheduler job's request that names no GPU: Toil's "accelerators: []", SLURM's --gres=gpu:0 or
# --gpus=0, PBS's ngpus=0.
_JOB_NO_GPU = re.compile(
    r"\baccelerators\s*[:=]\s*\[\s*\]|--gres[= ]gpu:0\b|--gpus(?:-per-\w+)?[= ]0\b|\bngpus=0\b"
    # or a person saying the job was given none ("I didn't actually get a gpu allocated").
    r"|\b(?:did ?n.?t|did not|was ?n.?t|were ?n.?t|never)\s+(?:\w+\s+)?"
    r"(?:get|got|given|allocated|assigned)\s+(?:a\s+|any\s+)?GPUs?(?:\s+allocated|\s+assigned)?\b(?!\s*\?)"
    r"|\bno GPUs? (?:was |were )?(?:allocated|assigned) (?:to|for) (?:the |my |this )?job\b",
    re.I,
)
# The text saying no GPU was found or can be used: a program's words, or a person's.
_GPU_MISSING = re.compile(
    r"\bno (?:MIG |CUDA |CUDA-capable |GPU |NVIDIA |usable |available )*(?:GPU )?devices? "
    r"(?:were |was |is |are |could be )?(?:found|detected|available)\b"
    r"|\bno GPUs? (?:were |was |is |are )?(?:found|detected|available)\b"
    r"|\bIs CUDA available\s*:\s*No\b"
    r"|\bcuda\.is_available\b(?:\(\))?\W{0,3}(?:returns?|is|gives|->|=+|:)?\s*False\b"
    r"|\b(?:can ?not|can.?t|could ?n.?t|does ?n.?t|do ?n.?t|did ?n.?t|never|unable to|fails? to|failed to)\s+"
    r"(?:\w+\s+){0,2}?"
    r"(?:get|use|see|detect|find|run|access|recogni[sz]e)\b[^.\n]{0,40}"
    r"\b(?:nvidia-smi|GPUs?|CUDA|graphics card)\b"
    r"|\b(?:nvidia-smi|GPUs?|CUDA)\b[^.\n]{0,30}\b(?:does ?n.?t|do ?n.?t|won.?t|not|never) work"
    # the GPU said not recognised / detected / visible ("the GPUs are not recognized by WSL")
    r"|\b(?:GPUs?|graphics cards?)\s+(?:is|are|was|were)\s+(?:still\s+)?(?:not|never)\s+"
    r"(?:recogni[sz]ed|detected|visible|seen|found|listed)\b(?![^.\n]{0,40}\?)",
    re.I,
)


def _cut(value: str, chars: int = VALUE_CHARS) -> str:
    value = " ".join(value.split())
    return value if len(value) <= chars else value[: chars - 1] + "…"


@dataclass
class SetupFacts:
    cuda_built: str = ""  # "10.1": the CUDA the program was built for
    cuda_built_at: Evidence | None = None
    driver: str = ""  # a driver version said as such ("Nvidia driver version: 410.48")
    driver_at: Evidence | None = None
    windows_driver: str = ""  # the Windows driver a text names as such
    smi_version: str = ""  # nvidia-smi's own version
    smi_at: Evidence | None = None
    container_run: str = ""  # the docker/podman run command meant for the GPU, lines joined, cut
    apptainer: bool = False  # that command is Apptainer's (Singularity's): --nv gives it the driver
    with_nv: str = ""  # that command whole, --nv added after its command word ("" where too long)
    container_at: Evidence | None = None
    driver_given: bool = False  # that command, or the text, gives the container the driver
    job_request: str = ""  # a scheduler job's request that names no GPU
    job_at: Evidence | None = None
    gpu_missing: Evidence | None = None  # the text says no GPU was found or can be used

    def lines(self) -> list[tuple[str, str]]:
        pairs = (
            ("setup.cuda_built", self.cuda_built),
            ("setup.windows_driver", self.windows_driver),
            ("setup.smi_version", self.smi_version),
            ("setup.container_run", self.container_run),
            ("setup.job_request", self.job_request),
        )
        return [(k, v) for k, v in pairs if v]


def _joined_runs(lines: list[str]) -> list[tuple[int, int, str]]:
    """Each docker/podman run (Apptainer exec/run/shell) command with the lines a trailing backslash
    continues it onto: (its first line's number, its last line's, the command)."""
    runs: list[tuple[int, int, str]] = []
    for i, line in enumerate(lines):
        m = _RUN.search(line)
        if m is None:
            continue
        command, j = line[m.start() :].rstrip(), i
        while command.endswith("\\") and j + 1 < len(lines) and j - i < 20:
            j += 1
            command = command[:-1] + " " + lines[j].strip()
        runs.append((i + 1, j + 1, command))
    return runs


def _run_of_missing_lib(runs: list[tuple[int, int, str]], lines: list[str]) -> list[tuple[int, int, str]]:
    """Where no run is meant for the GPU by its own words: the attached run (not --detach) nearest
    before a line where the program in it looked for the driver's libraries, within a screenful."""
    missing = next((n for n, line in enumerate(lines, start=1) if _DRIVER_LIB_MISSING.search(line)), None)
    if missing is None:
        return []
    near = [run for run in runs if run[0] <= missing and missing - run[1] < _SCREEN]
    return [run for run in near if not _DETACHED.search(run[2])][-1:]


def read_setup(text: str) -> SetupFacts:
    s = SetupFacts()
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        at = (number, line.strip()[:LINE_CHARS])
        m = _CUDA_BUILT.search(line)
        if m and not s.cuda_built:
            s.cuda_built, s.cuda_built_at = next(g for g in m.groups() if g), at
        m = _WINDOWS_DRIVER.search(line)
        if m and not s.windows_driver:
            s.windows_driver = m.group(1) or m.group(2)
        elif not s.driver and (m := _DRIVER.search(line)):
            s.driver, s.driver_at = m.group(1), at
        m = _SMI_VERSION.search(line)
        if m and not s.smi_version:
            s.smi_version, s.smi_at = m.group(1), at
        m = _JOB_NO_GPU.search(line)
        if m and not s.job_request:
            s.job_request, s.job_at = _cut(m.group(0)), at
        if s.gpu_missing is None and _GPU_MISSING.search(line):
            s.gpu_missing = at
    if s.gpu_missing is None:  # a line with the next: a narrow paste wraps "can not use" / "nvidia-smi" apart
        s.gpu_missing = next(
            (
                (n, ln.strip()[:LINE_CHARS])
                for n, ln in enumerate(lines, start=1)
                if n < len(lines) and _GPU_MISSING.search(ln + " " + lines[n].strip())
            ),
            None,
        )
    joined = _joined_runs(lines)
    runs = [run for run in joined if _FOR_GPU.search(run[2])] or _run_of_missing_lib(joined, lines)
    if runs:
        number, _, command = runs[0]
        s.container_run, s.container_at = _cut(command), (number, lines[number - 1].strip()[:LINE_CHARS])
        whole = " ".join(command.split())
        verb = _APPTAINER_VERB.match(whole)  # the run is Apptainer's where its command word is
        s.apptainer = verb is not None
        if verb is not None and len(command) <= _WHOLE_COMMAND:
            s.with_nv = f"{whole[: verb.end()]} --nv{whole[verb.end() :]}"
        s.driver_given = any(_GIVES_DRIVER.search(c) for *_, c in runs) or bool(_TOOLKIT_USED.search(text))
    return s


__all__ = ["Evidence", "SetupFacts", "read_setup"]
