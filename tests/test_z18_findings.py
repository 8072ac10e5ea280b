"""Smaller findings of the last trial (issue 18): each as a user would check it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wizard.cli.main import main


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p / "nonexist", "no such folder"),
        (lambda p: (p / "f.txt", (p / "f.txt").write_text("x"))[0], "is a file"),
        (lambda p: p, "is not a fleet project"),
    ],
    ids=["missing", "file", "empty-folder"],
)
def test_fleet_report_says_what_the_path_is(
    tmp_path: Path, make: object, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["fleet", "report", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err
