"""Which index a plan uses (`--mirror NAME|URL|default`), and when to suggest a mirror.

`resolve` turns the user's word into a Mirror (None = the default: whatever this machine's
pip/uv/conda configuration says, the plan adds nothing). `suggest` proposes one when the
locale is zh_CN (the default indexes are slow from there) or when a speed probe found the
default slow or silent; when nothing answers it says so and keeps the default.
"""

from __future__ import annotations

from dataclasses import dataclass

from wizard.mirror.catalogue import Catalogue, Mirror, MirrorError, check_url
from wizard.mirror.configured import Configured
from wizard.mirror.probe import ProbeResult, Target
from wizard.safe.display import safe
from wizard.text import t

DEFAULT = "default"
CONFIGURED = "configured"
# Slower than this for the first 64 KiB of the default index, and a mirror twice as fast: suggest it.
SLOW_SECONDS = 1.5


def resolve(ref: str | None, catalogue: Catalogue) -> Mirror | None:
    """None / "default" / "configured": the default. A catalogue name, or an index URL given directly."""
    if ref is None or ref.strip().lower() in ("", DEFAULT, CONFIGURED):
        return None
    ref = ref.strip()
    found = catalogue.get(ref)
    if found is not None:
        return found
    if "://" in ref:
        return Mirror(name=check_url(ref, "--mirror"), pypi=check_url(ref, "--mirror"), origin="url")
    known = ", ".join([DEFAULT, *catalogue.names])
    raise MirrorError(t("mirror.unknown", name=safe(ref, 60), known=known))


def pip_builtin_index() -> str | None:
    """The index pip itself uses when nothing is configured, read from the installed pip."""
    try:
        from pip._internal.models.index import PyPI  # the machine's pip says where its default is

        return str(PyPI.simple_url)
    except Exception:  # no pip here, or a pip that moved it: the probe then has no default to time
        return None


def default_index(configured: Configured) -> str | None:
    if configured.pip_index is not None:
        return configured.pip_index.value
    return pip_builtin_index()


def probe_targets(catalogue: Catalogue, configured: Configured) -> list[Target]:
    """The default index and every catalogue entry with an http(s) PyPI index (or else a conda channel)."""
    targets: list[Target] = []
    default = default_index(configured)
    if default and default.startswith(("http://", "https://")):
        targets.append(Target(DEFAULT, default))
    for mirror in catalogue.mirrors.values():
        url, kind = (mirror.pypi, "pypi") if mirror.pypi else (mirror.conda, "conda")
        if url and url.startswith(("http://", "https://")):
            targets.append(Target(mirror.name, url, kind))
    return targets


def is_zh_cn(locale: str) -> bool:
    return locale.lower().replace("-", "_").startswith("zh_cn")


@dataclass(frozen=True)
class Suggestion:
    mirror: Mirror | None  # None: keep the default
    reason: str  # locale | probe | none_answered | no_catalogue | default_fast
    message: str  # one line for the user


def suggest(
    catalogue: Catalogue,
    configured: Configured,
    *,
    locale: str = "",
    results: list[ProbeResult] | None = None,
) -> Suggestion | None:
    """A mirror to propose, or a line saying why the default stays; None when there is nothing to say."""
    if results:
        return _from_probe(catalogue, results)
    if configured.pip_index is not None or not is_zh_cn(locale):
        return None  # this machine already names its index, or nothing suggests the default is slow
    if not catalogue.mirrors:
        return Suggestion(None, "no_catalogue", t("mirror.suggest.no_catalogue"))
    first = next(iter(catalogue.mirrors.values()))
    return Suggestion(first, "locale", t("mirror.suggest.locale", name=first.name))


def _from_probe(catalogue: Catalogue, results: list[ProbeResult]) -> Suggestion:
    default = next((r for r in results if r.name == DEFAULT), None)
    answered = [r for r in results if r.ok and r.name != DEFAULT and catalogue.get(r.name) is not None]
    fastest = min(answered, key=lambda r: r.seconds, default=None)
    if default is None or not default.ok:
        if fastest is None:
            return Suggestion(None, "none_answered", t("mirror.suggest.none_answered"))
        return Suggestion(
            catalogue.get(fastest.name), "probe", t("mirror.suggest.default_silent", name=fastest.name)
        )
    if fastest is not None and default.seconds > SLOW_SECONDS and fastest.seconds * 2 <= default.seconds:
        return Suggestion(
            catalogue.get(fastest.name),
            "probe",
            t(
                "mirror.suggest.faster",
                name=fastest.name,
                mirror=f"{fastest.seconds:.1f}",
                default=f"{default.seconds:.1f}",
            ),
        )
    return Suggestion(
        None, "default_fast", t("mirror.suggest.default_fast", seconds=f"{default.seconds:.1f}")
    )
