"""Bundled demo profiles (assets/profiles/*.json) and the --profile NAME|FILE lookup."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wizard.assets import asset_text, list_assets
from wizard.profile import MachineProfile, ProfileError
from wizard.safe.display import safe
from wizard.text import LANGUAGES, has, in_language, t


@dataclass(frozen=True)
class DemoProfile:
    name: str  # file stem, what --profile takes
    label: str  # one line for people


def demo_names() -> list[str]:
    return [n[: -len(".json")] for n in list_assets("profiles") if n.endswith(".json")]


def demo_profiles() -> list[DemoProfile]:
    out = []
    for name in demo_names():
        profile = load_demo(name)
        out.append(DemoProfile(name, profile.label or name))
    return out


def load_demo(name: str) -> MachineProfile:
    try:
        text = asset_text(f"profiles/{name}.json")
    except FileNotFoundError:
        raise ProfileError(
            t("profile.error.no_demo", name=repr(name), names=", ".join(demo_names()))
        ) from None
    try:
        profile = MachineProfile.from_json(text)
    except ProfileError as exc:
        raise ProfileError(t("profile.error.demo", name=name, error=exc)) from None
    profile.simulated = True
    profile.demo = name
    # The label is the product's own sentence, so it is worded per language (the file keeps English).
    if has(f"demo.label.{name}"):
        profile.label = t(f"demo.label.{name}")
    return profile


def demo_labels(name: str) -> list[str]:
    """The demo's label as each language words it, and as its file says it (once the key of its
    journal, wizard.run.journal.legacy_keys)."""
    try:
        raw = MachineProfile.from_json(asset_text(f"profiles/{name}.json")).label
    except (FileNotFoundError, ProfileError):
        return []
    words = (
        [in_language(lang, f"demo.label.{name}") for lang in LANGUAGES] if has(f"demo.label.{name}") else []
    )
    return list(dict.fromkeys([*words, *([raw] if raw else [])]))


def says_nothing(profile: MachineProfile) -> bool:
    """A profile that names no platform, OS, Python, driver or GPU (`{}`): not a machine."""
    from wizard.profile import UNKNOWN

    return (
        profile.platform == UNKNOWN
        and profile.os.id == UNKNOWN
        and profile.python.version == UNKNOWN
        and profile.driver is None
        and not profile.gpus
        and not profile.nvidia_pci_devices
    )


def load_profile(ref: str) -> MachineProfile:
    """A file path if one exists there, else a demo profile name. Always marked simulated."""
    path = Path(ref).expanduser()
    if path.is_dir():  # a machine dump (detect --dump DIR), replayed through the probe
        from wizard.probe.dump import DumpError, detect_dump

        try:
            profile = detect_dump(path)
        except DumpError as exc:
            raise ProfileError(str(exc)) from None
        profile.simulated = True
        profile.label = profile.label or t("detect.dump_label", path=str(path))
        return profile
    if path.suffix == ".json" or path.exists() or "/" in ref:
        profile = MachineProfile.load(path)
        profile.simulated = True
        if says_nothing(profile):  # `{}`: no machine to plan for; never a plan "without a word"
            raise ProfileError(t("keys.profile.no_facts", path=safe(str(path), 400)))
        return profile
    return load_demo(ref)


def gpu_only_simulated(profile: MachineProfile | None) -> bool:
    """An NVIDIA card the driver does not reach on the machine as detected (no driver yet, or a
    stopped one: Secure Boot, a mismatch after an update), on a profile replayed in simulation.
    Its plan's driver steps run only in simulation: the simulated GPU check passes after them, while
    the monitor and the benchmark show the machine as detected (no GPU, the CPU). The Run's finish,
    the monitor and the benchmark all ask this one question, so they say the same."""
    return profile is not None and profile.has_nvidia_gpu and not profile.gpus
