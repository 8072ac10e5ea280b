"""The compatibility tables themselves: sourced, well formed, never contradicting."""

from __future__ import annotations

import copy

import pytest
from packaging.version import Version

from wizard.choose.knowledge import TABLES, build_knowledge, load_knowledge, read_table, validate


@pytest.fixture(scope="module")
def raw():
    return {name: read_table(name) for name in TABLES}


def test_tables_are_sound(raw):
    assert validate(raw) == []


def test_every_row_has_a_source_and_a_confidence(raw):
    for table, content in raw.items():
        for key, rows in content.items():
            for row in rows:
                assert str(row.get("source", "")).strip(), f"{table}.{key}: {row}"
                assert row["confidence"] in ("verified", "secondary", "unverified"), f"{table}.{key}: {row}"


def test_sources_are_urls_or_files(raw):
    for content in raw.values():
        for rows in content.values():
            for row in rows:
                src = row["source"]
                assert src.startswith(("https://", "http://")) or "/" in src, src


def test_releases_2_10_to_2_21_each_once():
    kb = load_knowledge()
    series = [r.series for r in kb.releases]
    assert series == [f"2.{m}" for m in range(21, 9, -1)]


@pytest.mark.parametrize(
    ("series", "python_range", "cuda", "cudnn"),
    [
        ("2.21", "3.10-3.13", "12.5", "9.3"),
        ("2.18", "3.9-3.12", "12.5", "9.3"),
        ("2.17", "3.9-3.12", "12.3", "8.9"),
        ("2.15", "3.9-3.11", "12.2", "8.9"),
        ("2.14", "3.9-3.11", "11.8", "8.7"),
        ("2.13", "3.8-3.11", "11.8", "8.6"),
        ("2.10", "3.7-3.10", "11.2", "8.1"),
    ],
)
def test_tested_build_configurations(series, python_range, cuda, cudnn):
    rel = load_knowledge().release(series)
    assert rel is not None
    assert rel.python_range() == python_range
    assert rel.cuda == Version(cuda)
    assert rel.cudnn == Version(cudnn)


def test_and_cuda_extra_starts_with_2_14_and_matches_cuda_major():
    kb = load_knowledge()
    for rel in kb.releases:
        extra = kb.extra(rel)
        if rel.version < Version("2.14"):
            assert extra is None
        else:
            assert extra is not None and extra.cuda_major == rel.cuda_major
            assert extra.nvcc is not None


def test_driver_floors_follow_tensorflow_pip_guide():
    kb = load_knowledge()
    floor = kb.driver_floor(kb.release("2.21"))
    assert (str(floor.linux), str(floor.wsl)) == ("525.60.13", "528.33")
    floor = kb.driver_floor(kb.release("2.14"))
    assert floor.cuda_major == 11


def test_driver_to_cuda_reads_table_3_backwards():
    kb = load_knowledge()
    assert kb.cuda_for_driver(Version("470.256.02"), windows=False) == Version("11.4")
    assert kb.cuda_for_driver(Version("535.183.01"), windows=False) == Version("12.2")
    assert kb.cuda_for_driver(Version("390.157"), windows=False) == Version("9.1")
    assert kb.cuda_for_driver(Version("300"), windows=False) is None


def test_gpu_lookup_forgives_prefix_and_case():
    kb = load_knowledge()
    assert kb.gpu("NVIDIA GeForce RTX 4090").compute_capability == Version("8.9")
    assert kb.gpu("geforce gtx 680").compute_capability == Version("3.0")
    assert kb.gpu("Tesla K80").compute_capability == Version("3.7")
    assert kb.gpu("no such card") is None


def test_validate_catches_a_contradiction(raw):
    bad = copy.deepcopy(raw)
    dup = dict(bad["tensorflow"]["release"][0])
    dup["cuda"] = "12.4"
    bad["tensorflow"]["release"].append(dup)
    assert any("two rows for TensorFlow 2.21" in p for p in validate(bad))


def test_validate_catches_a_missing_source_and_a_bad_range(raw):
    bad = copy.deepcopy(raw)
    del bad["gpus"]["gpu"][0]["source"]
    bad["architectures"]["arch"][0]["cc_min"] = "9.9"
    problems = validate(bad)
    assert any("no source" in p for p in problems)
    assert any("cc_min > cc_max" in p or "overlap" in p for p in problems)


def test_validate_catches_a_non_monotonic_driver_table(raw):
    bad = copy.deepcopy(raw)
    bad["cuda"]["toolkit"][0]["linux"] = "400.1"
    assert any("older driver" in p for p in validate(bad))


def test_unreadable_row_names_file_and_row(raw):
    bad = copy.deepcopy(raw)
    bad["compute"]["build"][0]["sass"] = ["six"]
    problems = validate(bad)
    assert problems and "compute.toml" in problems[-1]
    with pytest.raises(ValueError):
        build_knowledge(bad)


def test_myths_quote_the_truth_with_a_source():
    kb = load_knowledge()
    ids = {m.id for m in kb.myths}
    assert {"tf215-no-cuda12", "linux-driver-inside-wsl"} <= ids
    assert len(ids) == len(kb.myths)
    for m in kb.myths:
        assert m.truth and m.claim and m.source


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("555.42.02", "555.42.02"),
        ("525.60.13", "525.60.13"),
        ("390.157", "390.157"),
        ("580", "580"),
        ("570.26", "570.26"),
    ],
)
def test_driver_versions_are_shown_as_nvidia_writes_them(text, shown):
    from wizard.choose.knowledge import driver_text

    assert driver_text(Version(text)) == shown
