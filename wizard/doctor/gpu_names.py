"""GPU names as people write them in a log or a post, and their compute capability from the GPU table.

    named_gpus(text) -> list[str]        "5070Ti", "5090显卡", "tesla v100", "2070super", "my 5090",
                                         "RTX 50 series" read as "RTX 5070 Ti", "RTX 5090", "Tesla
                                         V100", ..., "RTX 50 series"
    table_cc(name, kb) -> Version | None the compute capability Choose's GPU table gives that name

A model number alone is a GPU only where it cannot be a random number: with its brand (RTX, GTX,
Tesla, ...), glued to a variant (5070Ti, 2070super), beside a GPU word (GPU, 显卡, graphics card),
after its board maker (Zotac 5070), owned ("my 5090") or as a data-centre model (V100, A100, H100). The table
(assets/knowledge/gpus.toml, the names NVML gives) answers by model: every row of that model must
agree on the capability (a Ti or SUPER of a model shares its chip generation), else nothing is known.
"""

from __future__ import annotations

import re
from functools import cache

from packaging.version import Version

from wizard.choose.knowledge import KnowledgeBase

MAX_NAMES = 8
_FLAGS = re.I | re.A  # ASCII word boundaries: a Chinese character beside a name is no letter of it
# GeForce model numbers: 9xx, 10xx, 16xx, 20xx, 30xx, 40xx, 50xx.
_GEFORCE = r"(?:9[5-8]0|10[5-8]0|16[56]0|20[5-8]0|30[5-9]0|40[5-9]0|50[5-9]0)"
_VARIANT = r"(?:\s?(?:Ti|SUPER)(?![A-Za-z])|(?<=[0-9])D(?![A-Za-z]))"
_BRANDED = re.compile(
    r"(?<![A-Za-z0-9.])(?:NVIDIA\s*)?(?:GeForce\s*)?(?P<brand>RTX|GTX|MX)\s?-?(?P<num>[0-9]{3,4})"
    r"(?P<var>" + _VARIANT + r")?(?![A-Za-z0-9.])",
    _FLAGS,
)
# A GeForce number glued to its variant ("5070Ti", "2070super"): a GPU's name, not a count.
_GLUED = re.compile(r"(?<![A-Za-z0-9.])(?P<num>" + _GEFORCE + r")(?P<var>Ti|super)(?![A-Za-z0-9])", _FLAGS)
# A GeForce number beside a GPU word on the same line, before or after it ("显卡：5070Ti",
# "5090显卡", "Gpu: 5060ti 16gb", "my gpu is a 5070 ti", "my 4090 GPU").
_GPU_WORD = r"(?:GPUs?|显卡|graphics card|video card|graphic card)"
_UNIT = r"(?![ \t]?(?:MiB|MB|GiB|GB|ms|MHz|W|%))"  # "GPU 1060 MiB" is memory, not a GTX 1060
_BESIDE = re.compile(
    rf"(?<![A-Za-z]){_GPU_WORD}[ \t:：,，是为]{{0,4}}(?:is\s(?:an?\s)?)?"
    rf"(?P<num>{_GEFORCE})(?P<var>{_VARIANT})?"
    rf"(?![A-Za-z0-9.]){_UNIT}"
    r"|(?<![A-Za-z0-9.])(?P<num2>" + _GEFORCE + r")(?P<var2>" + _VARIANT + r")?[ \t]?" + _GPU_WORD,
    _FLAGS,
)
# A GeForce number before its brand ("I use a 5090 RTX", "3060 GTX"): the card, its words turned round.
_BRAND_AFTER = re.compile(
    r"(?<![A-Za-z0-9.])(?P<num>"
    + _GEFORCE
    + r")(?P<var>"
    + _VARIANT
    + r")?\s(?P<brand>RTX|GTX)(?![A-Za-z0-9])",
    _FLAGS,
)
# A GeForce number someone calls theirs ("would love to use my 5090", "our 3090s"): a card, not a count.
_OWNED = re.compile(
    rf"(?<![A-Za-z])(?:my|our)\s+(?P<num>{_GEFORCE})(?P<var>{_VARIANT})?s?(?![A-Za-z0-9]|\.[0-9]){_UNIT}",
    _FLAGS,
)
# A GeForce series as people name it ("RTX 50 series", "RTX50", "RTX 40xx", "GTX 10系列"): every GPU of
# a series shares its chip generation, so the table's rows of that series give one capability.
_SERIES = re.compile(
    r"(?<![A-Za-z0-9.])(?P<brand>RTX|GTX)(?:\s?-?(?P<spaced>50|40|30|20|16|10)\s?-?(?:series|系列|系)"
    r"|\s?(?P<xx>50|40|30|20|16|10)[xX][xX0]|(?P<glued>50|40|30|20|16|10)(?![0-9A-Za-z]|\.[0-9]))",
    _FLAGS,
)
SERIES = " series"
# Data-centre models: with their brand any model; alone only the unmistakable ones (V100, A100, ...).
_TESLA = re.compile(
    r"(?<![A-Za-z])(?P<brand>Tesla|Quadro)\s+(?P<model>[KMPVTAHL][0-9]{1,3}[A-Z]?)(?![A-Za-z0-9])", _FLAGS
)
# GeForce GT cards (Fermi and Kepler's 6xx/7xx, Pascal's 1030) by their brand: "GT 710", "gt 740",
# "GT740 2GB"; a mobile part's M ("GT 750M") is another chip, and is not read as the desktop one.
# Not a shell test's "-gt 650" nor a series ("GT 600 series"); a sentence may end after the name.
_GT = re.compile(
    r"(?<![A-Za-z0-9.$-])(?:NVIDIA\s*)?(?:GeForce\s*)?GT\s?-?(?P<num>[67][1-9]0|10[13]0)(?![A-Za-z0-9]|\.[0-9])",
    _FLAGS,
)
# The TITAN of the Turing generation, as people write it ("Titan RTX", "TITAN RTX").
_TITAN_RTX = re.compile(r"(?<![A-Za-z0-9])(?:NVIDIA\s+)?TITAN\s+RTX(?![A-Za-z0-9])", _FLAGS)
_DATACENTRE = re.compile(r"(?<![A-Za-z0-9.-])(?P<model>[PVAH]100|[HB]200|GH200)(?![A-Za-z0-9.])", _FLAGS)


def _name(brand: str, num: str, var: str) -> str:
    var = var.strip().lower()
    shown = {"ti": " Ti", "super": " SUPER", "d": "D"}.get(var, "")
    brand = brand.upper()
    return f"MX{num}" if brand == "MX" else f"{brand} {num}{shown}"


def _geforce_brand(num: str) -> str:
    return "GTX" if num.startswith(("9", "10", "16")) else "RTX"


# A GeForce number after its board maker's name ("Zotac 5070 12 GB", "MSI 4090 Suprim", "ASUS 3080"):
# these makers' NVIDIA cards carry the GeForce number; their AMD cards carry RX numbers, none of which
# is a GeForce one.
_PARTNER = re.compile(
    r"(?<![A-Za-z0-9])(?:Zotac|MSI|ASUS|Gigabyte|EVGA|PNY|Palit|Gainward|Inno3D|Colorful|Galax|KFA2)"
    r"\s+(?P<num>" + _GEFORCE + r")(?P<var>" + _VARIANT + r")?(?![A-Za-z0-9.])" + _UNIT,
    _FLAGS,
)


def named_gpus(text: str) -> list[str]:
    """The GPUs a text names, as "RTX 5070 Ti", "Tesla V100" (first seen first; at most MAX_NAMES)."""
    found: list[tuple[int, str]] = []
    for m in _BRANDED.finditer(text):
        found.append((m.start(), _name(m.group("brand"), m.group("num"), m.group("var") or "")))
    # Named by the number, whatever brand was written beside it ("3060 GTX" is the RTX 3060).
    for m in (
        *_BRAND_AFTER.finditer(text),
        *_GLUED.finditer(text),
        *_OWNED.finditer(text),
        *_PARTNER.finditer(text),
    ):
        found.append((m.start(), _name(_geforce_brand(m.group("num")), m.group("num"), m.group("var") or "")))
    for m in _BESIDE.finditer(text):
        num = m.group("num") or m.group("num2")
        var = m.group("var") or m.group("var2") or ""
        found.append((m.start(), _name(_geforce_brand(num), num, var)))
    for m in _SERIES.finditer(text):
        series = m.group("spaced") or m.group("xx") or m.group("glued")
        found.append((m.start(), f"{m.group('brand').upper()} {series}{SERIES}"))
    for m in _TESLA.finditer(text):
        found.append((m.start(), f"{m.group('brand').title()} {m.group('model').upper()}"))
    for m in _GT.finditer(text):
        found.append((m.start(), f"GeForce GT {m.group('num')}"))
    for m in _TITAN_RTX.finditer(text):
        found.append((m.start(), "NVIDIA TITAN RTX"))
    for m in _DATACENTRE.finditer(text):
        model = m.group("model").upper()
        found.append((m.start(), f"Tesla {model}" if model[0] in "PV" else model))
    out: list[str] = []
    for _, name in sorted(found):
        if name not in out and len(out) < MAX_NAMES:
            out.append(name)
    return out


_WORD = re.compile(r"[A-Za-z]*[0-9]+[A-Za-z]*")


def _model(name: str) -> tuple[str, str]:
    """(model, variant) of a name: "GeForce RTX 5070 Ti" -> ("5070", "ti"), "Tesla V100-SXM2-16GB"
    -> ("v100", ""), "RTX 4000 Ada Generation" -> ("4000", "ada"), "GeForce GTX 960M" -> ("960m", "")."""
    words = name.replace("-", " ").split()
    for i, word in enumerate(words):
        if _WORD.fullmatch(word) and not word.upper().endswith("GB"):
            rest = " ".join(words[i + 1 :]).lower()
            var = next((v for v in ("ti", "super", "ada", "laptop") if re.search(rf"\b{v}\b", rest)), "")
            return word.lower(), var
    return "", ""


@cache
def _by_model(rows: tuple[tuple[str, Version], ...]) -> dict[str, list[tuple[str, Version]]]:
    index: dict[str, list[tuple[str, Version]]] = {}
    for name, cc in rows:
        model, var = _model(name)
        if model:
            index.setdefault(model, []).append((var, cc))
    return index


def table_cc(name: str, kb: KnowledgeBase) -> Version | None:
    """The GPU table's compute capability for a name written loosely; None where the table does not
    know the model or its rows disagree (a Quadro RTX 4000 is 7.5, an RTX 4000 Ada 8.9)."""
    row = kb.gpu(name)
    if row is not None:
        return row.compute_capability
    if name.startswith("GeForce GT "):
        return None  # a GT card by its own row only: its model number is also a GTX one's (GTX 650)
    if name.endswith(SERIES):  # "RTX 50 series": the GeForce rows of models 50x0
        series = name.split()[1]
        ccs = {
            g.compute_capability
            for g in kb.gpus
            if "GeForce" in g.name and re.fullmatch(series + r"[0-9]0", _model(g.name)[0])
        }
        return next(iter(ccs)) if len(ccs) == 1 else None
    model, var = _model(name)
    rows = _by_model(tuple((g.name, g.compute_capability) for g in kb.gpus)).get(model, [])
    if var in ("ti", "super"):
        # Its own row, else the model's: a Ti or SUPER shares its model's chip generation.
        ccs = {cc for v, cc in rows if v == var} or {cc for v, cc in rows if v in ("", "laptop")}
    else:
        ccs = {cc for _, cc in rows}
    return next(iter(ccs)) if len(ccs) == 1 else None


# A build of one's own: compiled here, with the capability list its maker (or the compiling
# machine's GPU) chose: detectron2's collect_env line, the build tools' capability settings, a
# source install of an extension.
_OWN_BUILD = re.compile(
    r"\barch flags\b|\bTORCH_CUDA_ARCH_LIST\b|\bCMAKE_CUDA_ARCHITECTURES\b|\bCUDA_GEN_CODE\b|-gencode\b"
    r"|\bTF_CUDA_COMPUTE_CAPABILITIES\b|\bMMCV_WITH_OPS\b|\bsetup\.py\s+(?:install|develop|build)"
    r"|\bpip\s+install\s+(?:-v\s+)?-e\b|\bpython\s+(?:setup\.py\s+)?install\s+-e\b"
    r"|\b(?:compil\w*|buil[dt]\w*)\s+(?:\w+\s+){0,3}?(?:from|through|with|using)\s+(?:the\s+)?source\b"
    r"|\bcompiling (?:TF|TensorFlow)\b|\bbuil(?:d|t|ding) (?:TF|TensorFlow) from source|\bbazel build\b"
    r"|maximum supported (?:CUDA )?compute capability|arch=compute_[0-9]+,\s?code="
    r"|源码编译|从源码",
    re.I,
)
_COMPILE_WORD = re.compile(r"\b(?:compil\w*|buil[dt](?:s|ing)?)\b|编译", re.I)
_SENTENCE = re.compile(r"[^.。!?！？\n]+")


def own_build(text: str) -> bool:
    """The text shows a build of one's own (compiled here, its capability list chosen here)."""
    return bool(_OWN_BUILD.search(text))


# A PyTorch extension built from source (mmcv, detectron2, a setup.py): what built_on knows how it
# chose its code; TensorFlow's configure or CMake choose theirs otherwise, an explicit list decides.
_EXTENSION = re.compile(
    r"\bsetup\.py\b|\binstall\s+-e\b|\bMMCV_WITH_OPS\b|\bcpp_extension\b|\bCUDAExtension\b|\b(?:py)?torch\b"
    r"|\bmmcv\b|\bdetectron2\b",
    re.I,
)
_OTHER_BUILDER = re.compile(
    r"\bTORCH_CUDA_ARCH_LIST\b|\bbazel\b|\bTF_CUDA_COMPUTE_CAPABILITIES\b|\bCMAKE_CUDA_ARCHITECTURES\b|-gencode\b"
    r"|\bcompiling (?:TF|TensorFlow)\b",
    re.I,
)


def built_on(text: str) -> tuple[str, str] | None:
    """(the GPU a sentence says the build was compiled on, another GPU the text names): PyTorch's
    extension builder, with no TORCH_CUDA_ARCH_LIST, compiles for the GPUs it sees (sm_XY and its
    PTX), so that build's code is the compiling GPU's. None unless exactly two GPUs are named and
    one of them, alone, in a sentence that says it compiled."""
    names = named_gpus(text)
    if len(names) != 2 or not _EXTENSION.search(text) or _OTHER_BUILDER.search(text):
        return None
    on = [
        n
        for m in _SENTENCE.finditer(text)
        if _COMPILE_WORD.search(m.group())
        for n in [named_gpus(m.group())]
        if len(n) == 1
    ]
    if len({n[0] for n in on}) != 1:
        return None
    first = on[0][0]
    other = next(n for n in names if n != first)
    return first, other


__all__ = ["built_on", "named_gpus", "own_build", "table_cc"]
