"""`tf-gpu-wizard fleet watch DIR`: the TA's board, one row per host, live.

A thread runs wizard.fleet.watch's rounds (one ad-hoc Ansible run each) and posts the rows as each
host answers; the table is redrawn from them, the cells worded by wizard.fleet.live_view (the same
words as the CLI's table and JSON). Keys: q quits (the running Ansible round is ended), r asks
again now, the arrows pick a host, whose details show under the table. A host that stops answering
turns red with why; nothing waits on it. At 80x24 ten hosts show at once; more scroll.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Static

from screens.widgets.table_widths import set_widths, widest
from wizard.fleet.live_view import board_cells, board_header, board_summary
from wizard.fleet.watch import Board, HostRow
from wizard.safe.display import safe
from wizard.text import t

# watcher(on_change, stop, sleep) -> the boards, one a round (tests give canned rounds)
Watcher = Callable[[Callable[[Board], None], Callable[[], bool], Callable[[float], bool]], Iterator[Board]]
STATE_STYLE = {"answering": "", "not-answering": "bold red", "waiting": "dim"}


class BoardChanged(Message):
    def __init__(self, rows: list[HostRow], summary: str) -> None:
        super().__init__()
        self.rows = rows
        self.summary = summary


class BoardFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class FleetBoardApp(App[int]):
    CSS = """
    #board-title { height: 1; background: $primary; color: $text; padding: 0 1; }
    #board { height: 1fr; }
    #board-detail { height: auto; max-height: 4; padding: 0 1; }
    #board-summary { height: 1; padding: 0 1; color: $text-muted; }
    #board-keys { height: 1; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("q,escape", "quit_board", t("fleet.watch.key_quit")),
        Binding("r", "ask_now", t("fleet.watch.key_ask")),
    ]

    def __init__(self, title: str, watcher: Watcher) -> None:
        super().__init__()
        self.board_title = title
        self.watcher = watcher
        self.rows: dict[str, HostRow] = {}
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(self.board_title), id="board-title")
        table: DataTable[Text] = DataTable(id="board", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(Text(t("fleet.watch.detail_none")), id="board-detail")
        yield Static(Text(""), id="board-summary")
        yield Static(Text(t("fleet.watch.keys")), id="board-keys")

    def on_mount(self) -> None:
        table = self.query_one("#board", DataTable)
        for name in board_header():
            table.add_column(Text(name, style="bold"))
        table.focus()
        self._thread = threading.Thread(target=self._rounds, name="fleet-watch", daemon=True)
        self._thread.start()

    # ---- the rounds, in their own thread ----------------------------------------------------

    def _sleep(self, seconds: float) -> bool:
        self._wake.wait(seconds)
        self._wake.clear()
        return self._stop.is_set()

    def _post(self, board: Board) -> None:
        if not self._stop.is_set():
            self.post_message(BoardChanged(board.ordered(), board_summary(board)))

    def _rounds(self) -> None:
        try:
            for board in self.watcher(self._post, self._stop.is_set, self._sleep):
                self._post(board)
        except Exception as exc:  # Ansible missing, an inventory it cannot read: said on the board
            if not self._stop.is_set():
                self.post_message(BoardFailed(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)))

    # ---- the screen ---------------------------------------------------------------------------

    def on_board_changed(self, message: BoardChanged) -> None:
        table = self.query_one("#board", DataTable)
        for row in message.rows:
            cells = [Text(c, style=STATE_STYLE.get(row.state, "")) for c in board_cells(row)]
            if row.host not in self.rows:
                table.add_row(*cells, key=row.host)
            else:
                for column, cell in zip(table.columns, cells, strict=False):
                    table.update_cell(row.host, column, cell, update_width=True)
            self.rows[row.host] = row
        self._fit_columns(table)
        self.query_one("#board-summary", Static).update(Text(message.summary))
        self._show_detail()

    def _fit_columns(self, table: DataTable[Text]) -> None:
        """Each column at the width its cells need, set with the rows (screens.widgets.table_widths)."""
        header = board_header()
        cells = [board_cells(row) for row in self.rows.values()]
        set_widths(
            table, [widest(label, [c[i] for c in cells if i < len(c)]) for i, label in enumerate(header)]
        )

    def on_board_failed(self, message: BoardFailed) -> None:
        self.query_one("#board-summary", Static).update(Text(safe(message.error, 300), style="bold red"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        table = self.query_one("#board", DataTable)
        if not self.rows or table.row_count == 0:
            return
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # no row under the cursor yet
            return
        row = self.rows.get(str(key))
        if row is None:
            return
        self.query_one("#board-detail", Static).update(detail_text(row))

    def action_ask_now(self) -> None:
        self._wake.set()

    def action_quit_board(self) -> None:
        self.stop_rounds()
        self.exit(0)

    def stop_rounds(self, wait_s: float = 0.0) -> None:
        """End the rounds; with `wait_s`, wait that long for the running Ansible to be ended."""
        self._stop.set()
        self._wake.set()
        if wait_s and self._thread is not None:
            self._thread.join(wait_s)


def detail_text(row: HostRow) -> Text:
    """The picked host in full: each GPU, CPU, when it was last read, why it does not answer."""
    import time

    from wizard.monitor.view import pct

    lines: list[str] = [safe(row.host, 80)]
    for g in row.gpus:
        memory = (
            "-"
            if g.mem_used is None or g.mem_total is None
            else (f"{g.mem_used / 1024**3:.1f}/{g.mem_total / 1024**3:.1f} GiB")
        )
        lines.append(
            t(
                "fleet.watch.detail_gpu",
                index=g.index,
                name=safe(g.name, 60),
                util=pct(g.util),
                memory=memory,
                temp="-" if g.temperature is None else f"{g.temperature}°C",
                processes=safe(", ".join(g.processes), 120) or t("fleet.watch.idle"),
            )
        )
    if not row.gpus and row.no_gpu:
        lines.append(safe(row.no_gpu, 200))
    extra = []
    if row.cpu_percent is not None:
        extra.append(t("fleet.watch.detail_cpu", percent=pct(row.cpu_percent)))
    if row.read_at is not None:
        extra.append(
            t("fleet.watch.detail_read", time=time.strftime("%H:%M:%S", time.localtime(row.read_at)))
        )
    if row.state == "not-answering" and row.reason:
        extra.append(t("fleet.watch.detail_reason", reason=safe(row.reason, 200)))
    if extra:
        lines.append("   ".join(extra))
    style = "red" if row.state == "not-answering" else ""
    return Text("\n".join(lines), style=style)


def run_board(project: Path, inventory: Path, interval: float, round_limit_s: float) -> int:
    from wizard.fleet.watch import watch

    def watcher(
        on_change: Callable[[Board], None], stop: Callable[[], bool], sleep: Callable[[float], bool]
    ) -> Iterator[Board]:
        return watch(
            project, inventory, interval=interval, round_limit_s=round_limit_s,
            on_change=on_change, stop=stop, sleep=sleep,
        )  # fmt: skip

    title = f"{t('fleet.watch.title')} — {safe(str(project), 200)}"
    app = FleetBoardApp(title, watcher)
    try:
        app.run()
    finally:
        app.stop_rounds(wait_s=10.0)  # the round in flight ends its Ansible (within 0.25 s)
    return app.return_code or 0
