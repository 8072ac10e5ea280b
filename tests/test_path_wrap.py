"""How the Run screen's notice and log break a line: a command to copy keeps its first word with
its path, a path breaks only after a "/", and no character is lost or added but the breaks."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from screens.widgets.path_wrap import fold_path, wrap_command, wrap_paths

HELLO = "    python /home/student/.venvs/tf-gpu/share/tf-gpu-wizard/hello_gpu.py"


def _joined(lines: list[str], indent: str) -> str:
    """The lines put back together as a person reads them: the continuation's indent taken off."""
    return lines[0] + "".join(line.removeprefix(indent) for line in lines[1:])


@pytest.mark.parametrize("width", [30, 40, 48, 56, 70])
def test_a_command_keeps_its_first_word_with_its_path_and_its_indent(width: int) -> None:
    lines = wrap_command(HELLO, width)
    assert len(lines) > 1
    assert lines[0].startswith("    python /home/")  # never `python` alone above its path
    assert all(line.startswith("    ") for line in lines)  # under the same indent
    assert all(cell_len(line) <= width for line in lines)
    assert all(line.endswith("/") for line in lines[:-1])  # broken only after a "/"
    assert lines[-1].endswith("hello_gpu.py")  # the file name whole
    assert _joined(lines, "    ").replace("    ", "", 1) == HELLO.strip()


def test_a_command_that_fits_is_left_as_it_is() -> None:
    assert wrap_command(HELLO, 80) == [HELLO]
    assert wrap_paths("Try it:\n" + HELLO, 80) == "Try it:\n" + HELLO


def test_a_command_breaks_after_a_space_between_its_arguments() -> None:
    line = "    source /home/student/miniforge3/bin/activate /home/student/.venvs/tf-gpu"
    lines = wrap_command(line, 52)
    assert lines == ["    source /home/student/miniforge3/bin/activate", "    /home/student/.venvs/tf-gpu"]


def test_too_narrow_for_an_indent_the_continuations_go_without_it() -> None:
    lines = wrap_command(HELLO, 14)
    assert lines[0] == "python /home/"  # 4 cells of indent in 14 would leave too little room
    assert lines[1:] and all(not line.startswith(" ") for line in lines)
    assert "".join(lines).replace(" ", "") == HELLO.replace(" ", "")


def test_prose_with_a_path_still_breaks_between_words_and_after_a_slash() -> None:
    text = "Full log: /home/student/.local/state/tf-gpu-wizard/logs/apply-20261202.log"
    out = wrap_paths(text, 30).split("\n")
    assert out[0] == "Full log:"
    assert all(cell_len(line) <= 30 for line in out)
    assert out[-1].endswith("apply-20261202.log")


def test_nothing_is_lost_from_odd_paths() -> None:
    for line in ("    cp //srv//x/ /a b/", "    /", "    a  b   /c//d/e"):
        for width in (3, 6, 9, 12):
            lines = wrap_command(line, width)
            assert "".join(lines).replace(" ", "") == line.replace(" ", ""), (line, width, lines)


def test_fold_path_keeps_a_file_name_wider_than_the_line_whole() -> None:
    assert fold_path("/a/averyveryverylongname.py", 10) == ["/a/", "averyveryverylongname.py"]
