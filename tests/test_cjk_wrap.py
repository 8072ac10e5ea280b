"""Chinese lines break between characters (Rich and Textual), never before a closing mark
or after an opening one; English wraps exactly as before."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st
from rich._wrap import words as rich_words
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.content import Content

from wizard.cjk.linebreak import install_cjk_wrapping, words

PARAGRAPH = (
    "这一步会以 root 身份运行：需要你的 sudo 密码，向导只在内存中保存它一次，运行结束后立即丢弃。"
    "在 WSL2 中，GPU 是通过 Windows 驱动访问的；TensorFlow 需要 528.33 或更新的驱动（WSL 看到的是"
    "566.36）。请在 Windows PowerShell 中运行“wsl --shutdown”，然后重新打开终端。"
)
CLOSING = "，。、；：！？）」』】》〉”’…"
OPENING = "（「『【《〈“‘"


@given(st.text(alphabet=string.printable + "éüßøΩЖ", max_size=60))
def test_text_without_cjk_splits_exactly_like_rich(text: str) -> None:
    assert list(words(text)) == list(rich_words(text))


def test_units_keep_punctuation_with_its_character() -> None:
    units = [w for _, _, w in words("需要你的 sudo 密码，向导（在内存中）保存“它”。12.7）的")]
    assert units[:6] == ["需", "要", "你", "的 ", "sudo ", "密"]
    assert "码，" in units and "（在" in units and "中）" in units and "“它”。" in units and "12.7）" in units


def _check_lines(lines: list[str], width: int) -> None:
    assert "".join(lines).replace(" ", "") == PARAGRAPH.replace(" ", "")  # nothing lost or added
    for number, line in enumerate(lines):
        assert cell_len(line.rstrip()) <= width, (width, line)
        assert not line.lstrip()[:1] or line.lstrip()[0] not in CLOSING, (width, line)
        assert line.rstrip()[-1:] not in OPENING, (width, line)
        if number < len(lines) - 1:
            # A line is only left short when the next unit does not fit: at most the widest
            # unit here ("TensorFlow"/"PowerShell", 10 cells, or "566.36）" with its mark) plus a space.
            assert width - cell_len(line.rstrip()) <= 12, (width, line)


def test_rich_wraps_chinese_between_characters() -> None:
    install_cjk_wrapping()
    for width in range(16, 61, 3):
        console = Console(width=width, record=True, legacy_windows=False)
        lines = Text(PARAGRAPH).wrap(console, width)
        _check_lines([line.plain for line in lines], width)


def test_textual_content_wraps_chinese_between_characters() -> None:
    install_cjk_wrapping()
    for width in range(16, 61, 3):
        _check_lines([line.plain for line in Content(PARAGRAPH).wrap(width)], width)
    # The case that prompted this: a Latin word before a long Chinese run stays on its line.
    lines = [line.plain.rstrip() for line in Content("需要你的 sudo 密码，向导只在内存中保存它一次").wrap(20)]
    assert lines[0] == "需要你的 sudo 密码，" and "sudo" not in lines[1]
