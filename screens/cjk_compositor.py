"""A work-around for a Textual compositor artefact that blanks Chinese characters in overlays.

Textual paints a line in "chops": the line is cut at every place a widget starts or ends, and
each widget's line is divided at *all* those cuts, including the edges of widgets *beneath* it.
Dividing a line in the middle of a double-width character turns both halves into spaces (rich's
Segment.split_cells), so an overlay (a Select's option list) over a row of other widgets loses
the CJK character that straddles an edge underneath: the zh Method list showed "仅 CPU" as
"   CPU" at 80x24, where the "环境文件夹" label ends under the list.

This compositor divides a widget's line the same way, except across a cut that splits a wide
character where the widget owns the chops on both sides: there the character stays whole in the
left chop and the right chop is left empty-but-owned, so nothing shows through and the line keeps
its width. Where the widget owns only one side (it really is covered there), the character is
split as before: half a character cannot be shown. Textual versions without the same internals
keep their own compositor (see `install`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from rich.cells import cell_len
from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


def _straddled(strip: Strip, cuts: Sequence[int]) -> set[int]:
    """The cuts (relative to the strip) that fall inside a double-width character."""
    wanted = set(cuts)
    found: set[int] = set()
    x = 0
    for segment in strip:
        if segment.control:
            continue
        for char in segment.text:
            width = cell_len(char)
            if width > 1:
                found.update(c for c in range(x + 1, x + width) if c in wanted)
            x += width
    return found


class CjkCompositor(Compositor):
    def _render_chops(
        self,
        crop: Region,
        is_rendered_line: Callable[[int], bool],
    ) -> Sequence[Mapping[int, Strip]]:
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        for region, clip, strips in self._get_renders(crop):
            render_region = region.intersection(clip)
            render_x = render_region.x
            first_cut, last_cut = render_region.column_span
            for y, strip in zip(render_region.line_range, strips, strict=False):
                if not is_rendered_line(y):
                    continue
                line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                starts = final_cuts[:-1]
                # Painting goes front to back: a chop already filled belongs to a widget in front.
                owned = [line.get(cut) is None for cut in starts]
                split = _straddled(strip, [cut - render_x for cut in final_cuts[1:-1]])
                keep_whole = {
                    i
                    for i in range(1, len(starts))
                    if owned[i - 1] and owned[i] and starts[i] - render_x in split
                }
                if not keep_whole:
                    pieces = strip.divide([cut - render_x for cut in final_cuts[1:]])
                    for cut, piece in zip(starts, pieces, strict=False):
                        if line.get(cut) is None:
                            line[cut] = piece
                    continue
                bounds = [cut - render_x for i, cut in enumerate(final_cuts[1:], 1) if i not in keep_whole]
                rest = iter(strip.divide(bounds))
                for i, cut in enumerate(starts):
                    piece = Strip([]) if i in keep_whole else next(rest)
                    if owned[i]:
                        line[cut] = piece
        return cast("Sequence[Mapping[int, Strip]]", chops)


def install(screen: Any) -> None:
    """Give `screen` the compositor above, where this Textual paints the way it expects."""
    stock = getattr(screen, "_compositor", None)
    needed = ("_get_renders", "cuts", "_render_chops")
    if type(stock) is Compositor and all(hasattr(stock, name) for name in needed):
        screen._compositor = CjkCompositor()
