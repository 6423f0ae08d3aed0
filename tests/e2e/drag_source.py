"""A second program to drag files from, as a file manager would (run under X11 by the
drag-and-drop test): a small window titled "FreightDesk drag source" at the screen's top
left; pressing the mouse in it writes a PDF and starts a `QDrag` with its file URL (the
first file named the first time, the next one the next time, the last one from then on).
While it is dragged, it prints `over copy` each time the window under the pointer takes
the drop as a copy, as its cursor tells a user (`over ignoreaction` when it turns to refusing
one): the program under the pointer is ready for it. When the drag ends it prints
`dropped copy` (or the action taken: `dropped ignoreaction` when none).

    python -m tests.e2e.drag_source <file.pdf> [<file.pdf>...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QDrag, QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel

TITLE = "FreightDesk drag source"
SIZE = (240, 160)


def write_pdf(path: Path, text: str) -> None:
    """A one-page PDF with `text` on it (the app previews and uploads it)."""
    from PySide6.QtGui import QPageSize, QPainter, QPdfWriter

    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    painter = QPainter(writer)
    painter.drawText(200, 400, text)
    painter.end()


class Source(QLabel):
    def __init__(self, files: list[Path]) -> None:
        super().__init__(f"Drag {files[0].name} from here")
        self.files = files
        self.setWindowTitle(TITLE)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setFixedSize(*SIZE)
        self.move(0, 0)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt's name)
        file = self.files.pop(0) if len(self.files) > 1 else self.files[0]
        self.setText(f"Drag {self.files[0].name} from here")
        write_pdf(file, f"Proof of delivery {file.stem}")
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(file))])
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.actionChanged.connect(lambda action: print(f"over {_word(action)}", flush=True))
        action = drag.exec(Qt.DropAction.CopyAction)
        print(f"dropped {_word(action)}", flush=True)


def _word(action: Qt.DropAction) -> str:
    return "copy" if action == Qt.DropAction.CopyAction else str(action.name).lower()


def main() -> int:
    app = QApplication(sys.argv[:1])
    source = Source([Path(name) for name in sys.argv[1:]])
    source.show()
    print("ready", flush=True)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
