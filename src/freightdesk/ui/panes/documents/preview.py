"""A document's file beside the results: PDF pages (QtPdf), images, plain text.

The file comes from the local copy (downloaded once, verified, kept under its sha256), so
flipping between documents does not download anything twice. Files larger than
`MAX_PREVIEW_BYTES` are not fetched just to be looked at.

The PDF view's size must not depend on what it shows. Fitted to its width, a page's height
follows the width; with scroll bars "as needed", a page that just fits showed the vertical
bar, which narrowed the view, which shrank the page, which hid the bar, which widened the
view... and the GUI thread spun in that relayout for good (at a 1440x900 window, where the
preview is about 4:3). So the fitted axis never scrolls and the other always shows its bar:
the viewport is the same size whatever the zoom.

Until the file is fetched and its first page painted (rendering runs in a thread of QtPdf),
an indicator over the preview says it is loading.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QImageReader, QPixmap, QResizeEvent
from PySide6.QtPdf import QPdfDocument, QPdfPageRenderer
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from freightdesk.models.documents import Document
from freightdesk.service.messages import explain
from freightdesk.service.session import AppSession
from freightdesk.ui.panes.documents.labels import size_text
from freightdesk.ui.tasks import spawn

MAX_PREVIEW_BYTES = 50 * 1024 * 1024
MAX_TEXT_BYTES = 512 * 1024
TEXT_TYPES = ("text/", "application/json", "application/xml")


def preview_kind(content_type: str) -> str | None:
    """ "pdf", "image" or "text" for what can be shown, None otherwise."""
    media = content_type.split(";")[0].strip().lower()
    if media == "application/pdf":
        return "pdf"
    if media.startswith("image/"):
        return "image"
    if media.startswith(TEXT_TYPES):
        return "text"
    return None


class LoadingIndicator(QWidget):
    """ "Loading the preview…" with a busy bar, over the preview: a child outside any layout,
    so showing it, hiding it or changing its text resizes nothing else."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("previewLoading")
        self.setAutoFillBackground(True)
        self.label = QLabel("Loading the preview…", self)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)  # busy
        self.bar.setTextVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.setVisible(False)

    def place(self) -> None:
        """Centred in the parent, at most 320 pixels wide."""
        parent = self.parentWidget()
        if parent is None:
            return
        width = min(320, max(0, parent.width() - 16))
        height = self.sizeHint().height()
        self.setGeometry(
            (parent.width() - width) // 2, (parent.height() - height) // 2, width, height
        )

    def start(self, text: str) -> None:
        self.label.setText(text)
        self.place()
        self.show()
        self.raise_()

    def stop(self) -> None:
        self.hide()


class DocumentPreview(QWidget):
    loaded = Signal(str)  # the kind shown: pdf, image, text, message

    def __init__(self, session: AppSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.document: Document | None = None
        self.kind = "message"
        self._pixmap: QPixmap | None = None

        self.stack = QStackedWidget(self)
        self.message = QLabel("Select a document to preview it", self)
        self.message.setObjectName("previewMessage")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.pdf = QPdfDocument(self)
        self.pdf_view = QPdfView(self)
        self.pdf_view.setObjectName("pdfView")
        self.pdf_view.setDocument(self.pdf)
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        # Fitted to the width: no horizontal bar ever, the vertical one always (see above).
        self.pdf_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pdf_view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        renderer = self.pdf_view.findChild(QPdfPageRenderer)
        if renderer is not None:  # the view's own renderer says when a page is drawn
            renderer.pageRendered.connect(self._page_rendered)
        self._rendering = False
        self.image = QLabel(self)
        self.image.setObjectName("imagePreview")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.image_area = QScrollArea(self)
        self.image_area.setWidget(self.image)
        self.image_area.setWidgetResizable(True)
        # A page of the stack gets its size only once shown: the image is fitted whenever
        # the viewport's size changes (before, it was fitted to the hidden page's size and
        # a photo showed as a stamp-sized thumbnail).
        self.image_area.viewport().installEventFilter(self)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("textPreview")
        self.text.setReadOnly(True)
        for widget in (self.message, self.pdf_view, self.image_area, self.text):
            self.stack.addWidget(widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.loading = LoadingIndicator(self)

    def show_document(self, document: Document | None) -> None:
        self.document = document
        self._close_pdf()
        if document is None:
            self._say("Select a document to preview it")
            return
        if not document.files:
            self._say("This document has no file.")
            return
        file = document.files[0]
        kind = preview_kind(file.content_type)
        if kind is None:
            self._say(
                f"No preview for {file.file_name} ({file.content_type}). "
                "Open it with another program or save a copy."
            )
            return
        if file.size > MAX_PREVIEW_BYTES:
            self._say(
                f"{file.file_name} is {size_text(file.size)}, too large to preview here. "
                "Open it or save a copy."
            )
            return
        service = self.session.documents
        if service is None:
            return
        ready = service.local_copy_ready(document)
        if ready is not None:
            self._show_file(document, ready, kind)
            return
        if self.session.client is None:
            self._say("The preview appears once the service can be reached.")
            return
        self._say("")
        self.loading.start(f"Loading {file.file_name}…")

        def progress(done: int, total: int) -> None:
            if self.document is document and total:
                self.loading.label.setText(f"Loading {file.file_name}… {100 * done // total} %")

        def done(path: Path) -> None:
            if self.document is document:
                self._show_file(document, path, kind)

        def failed(error: BaseException) -> None:
            if self.document is document:
                self._say(f"Cannot show this document: {explain(error)}")

        spawn(
            service.local_copy(document, progress),
            on_done=done,
            on_error=failed,
            name="document-preview",
        )

    def _show_file(self, document: Document, path: Path, kind: str) -> None:
        if kind == "pdf":
            status = self.pdf.load(str(path))
            if status != QPdfDocument.Error.None_:
                self._say(f"{document.files[0].file_name} is not a PDF that can be shown.")
                return
            # Shown at once, blank until QtPdf's thread has drawn the page: loading till then.
            self._rendering = True
            self.loading.start(f"Loading {document.files[0].file_name}…")
            self.stack.setCurrentWidget(self.pdf_view)
        elif kind == "image":
            reader = QImageReader(str(path))
            reader.setAutoTransform(True)  # photos of delivery receipts come rotated
            image = reader.read()
            if image.isNull():
                self._say(f"{document.files[0].file_name} is not an image that can be shown.")
                return
            self._pixmap = QPixmap.fromImage(image)
            self.stack.setCurrentWidget(self.image_area)
            self._scale_image()  # again when the page gets its size (see eventFilter)
        else:
            with path.open("rb") as handle:
                data = handle.read(MAX_TEXT_BYTES)
            text = data.decode("utf-8", errors="replace")
            if path.stat().st_size > MAX_TEXT_BYTES:
                text += "\n… (the rest is not shown)"
            self.text.setPlainText(text)
            self.stack.setCurrentWidget(self.text)
        self.kind = kind
        if not self._rendering:
            self.loading.stop()
        self.loaded.emit(kind)

    def _page_rendered(self, *_args: object) -> None:
        if self._rendering and self.kind == "pdf":
            self._rendering = False
            self.loading.stop()

    @property
    def painted(self) -> bool:
        """The document is on screen (not loading, not rendering)."""
        return self.kind != "message" and not self.loading.isVisible()

    def _say(self, text: str) -> None:
        self._rendering = False
        self.loading.stop()
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)
        self.kind = "message"
        self._pixmap = None
        self.loaded.emit("message")

    def _close_pdf(self) -> None:
        if self.pdf.status() != QPdfDocument.Status.Null:
            self.pdf.close()

    def _scale_image(self) -> None:
        if self._pixmap is None:
            return
        area = self.image_area.viewport().size()
        if self._pixmap.width() > area.width() or self._pixmap.height() > area.height():
            self.image.setPixmap(
                self._pixmap.scaled(
                    area,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
        else:
            self.image.setPixmap(self._pixmap)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.loading.place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize and watched is self.image_area.viewport():
            self._scale_image()
        return False
