"""SummaryWriter, PyTorch's (torch.utils.tensorboard): log scalars, histograms, images and text
for TensorBoard, into event files under `runs/` by default, with neither TensorFlow nor
TensorBoard installed (`tensorboard --logdir runs` shows them, wherever TensorBoard is installed).

Layer L5 (utils): event_file.py and summaries.py. Events are buffered and written when
`max_queue` are waiting or `flush_secs` have passed since the last write, at `flush()` and at
`close()` (also when the writer is garbage-collected or the program exits). PyTorch flushes from a
thread on a timer; here the check runs at each add_*: a writer left idle holds its last events until
flush(), close() or exit.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
import weakref
from datetime import datetime
from typing import Any, BinaryIO

from . import event_file as E
from . import summaries as S

_next_uid = itertools.count().__next__  # (in the file name: two writers in one second differ)


class _EventFile:
    """One event file: opened with its file-version event, then records appended."""

    def __init__(self, log_dir: str, suffix: str, max_queue: int, flush_secs: float) -> None:
        os.makedirs(log_dir, exist_ok=True)
        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}"
        self.path = os.path.join(log_dir, f"{name}.{_next_uid()}{suffix}")
        self.file: BinaryIO | None = open(self.path, "wb")
        self.queue: list[bytes] = []
        self.max_queue, self.flush_secs, self.flushed_at = max_queue, flush_secs, now
        self.add(E.event(now))
        self.flush()
        self._finalizer = weakref.finalize(self, _close_file, self.file, self.queue)

    def add(self, event: bytes) -> None:
        if self.file is None:
            raise RuntimeError("this SummaryWriter was closed; make a new one to log more")
        self.queue.append(E.record(event))
        if len(self.queue) >= self.max_queue or time.time() - self.flushed_at >= self.flush_secs:
            self.flush()

    def flush(self) -> None:
        if self.file is not None:
            self.file.write(b"".join(self.queue))
            self.queue.clear()
            self.file.flush()
            self.flushed_at = time.time()

    def close(self) -> None:
        self.flush()
        self._finalizer.detach()
        if self.file is not None:
            self.file.close()
            self.file = None


def _close_file(file: BinaryIO, queue: list[bytes]) -> None:
    """At garbage collection or exit: what is still queued is written, then the file closed."""
    if not file.closed:
        file.write(b"".join(queue))
        file.close()


def _default_log_dir(comment: str) -> str:
    """PyTorch's default: runs/<Mon DD_HH-MM-SS>_<hostname><comment>."""
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


class SummaryWriter:
    """Write TensorBoard event files: `add_scalar`, `add_scalars`, `add_histogram`, `add_image`,
    `add_images`, `add_figure`, `add_text`; PyTorch's signatures (a `with` block closes it).

    >>> writer = tg.utils.tensorboard.SummaryWriter("runs/demo")  # doctest: +SKIP
    >>> writer.add_scalar("loss", 0.25, global_step=1)  # doctest: +SKIP
    """

    def __init__(
        self,
        log_dir: str | os.PathLike | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        self.log_dir = os.fspath(log_dir) if log_dir is not None else _default_log_dir(comment)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = (
            max_queue,
            flush_secs,
            filename_suffix,
        )
        self._file = self._open(self.log_dir)
        self._scalars_files: dict[str, _EventFile] = {}  # add_scalars' files, one per curve
        if purge_step is not None:  # (TensorBoard drops events at and after it from older files)
            self._file.add(E.session_start(time.time(), purge_step))

    def _open(self, log_dir: str) -> _EventFile:
        return _EventFile(log_dir, self.filename_suffix, self.max_queue, self.flush_secs)

    def get_logdir(self) -> str:
        """The directory the event files are written to."""
        return self.log_dir

    def _add(self, summary: bytes, global_step: int | None, walltime: float | None) -> None:
        wall = time.time() if walltime is None else float(walltime)
        self._file.add(E.event(wall, int(global_step or 0), summary=summary))

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number under `tag` at `global_step` (`new_style`/`double_precision`: accepted;
        the value is stored as TensorBoard's classic float scalar)."""
        self._add(S.scalar(tag, scalar_value), global_step, walltime)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log several numbers as curves of one chart, each in its own run directory
        (log_dir/<main_tag>_<tag>), as PyTorch does."""
        wall = time.time() if walltime is None else float(walltime)
        for tag, value in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, S.tag_for(main_tag, tag))
            file = self._scalars_files.get(run)
            if file is None:
                file = self._scalars_files[run] = self._open(run)
            file.add(E.event(wall, int(global_step or 0), summary=S.scalar(main_tag, value)))

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log a histogram of `values` (bins: 'tensorflow', TensorBoard's exponential buckets, or
        anything np.histogram takes)."""
        self._add(S.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Log an image: floats in [0, 1] or uint8, laid out as `dataformats` says."""
        self._add(S.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Log a batch of images, tiled into one."""
        self._add(S.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Log a Matplotlib figure (or a list of them) as an image; `close` closes it after."""
        figures = figure if isinstance(figure, list) else [figure]
        pixels = [S.figure_pixels(f) for f in figures]
        if close:
            import matplotlib.pyplot as plt  # (the caller made a figure: Matplotlib is there)

            for f in figures:
                plt.close(f)
        if len(pixels) == 1:
            self.add_image(tag, pixels[0], global_step, walltime, dataformats="HWC")
        else:
            batch = [p.transpose(2, 0, 1) for p in pixels]
            self.add_images(tag, batch, global_step, walltime, dataformats="NCHW")

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a string (shown as Markdown)."""
        self._add(S.text(tag, text_string), global_step, walltime)

    def _not_here(self, what: str) -> None:
        raise NotImplementedError(
            f"SummaryWriter.{what} is not supported by tapegrad's writer (it logs scalars, "
            "histograms, images, figures and text); log what you need with those"
        )

    def add_graph(self, *args: Any, **kwargs: Any) -> None:
        """Not supported: tapegrad has no traced graph to export (draw the tape with tg.viz)."""
        self._not_here("add_graph")

    def add_embedding(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_embedding")

    def add_hparams(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_hparams")

    def add_audio(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_audio")

    def add_video(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_video")

    def add_pr_curve(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_pr_curve")

    def add_mesh(self, *args: Any, **kwargs: Any) -> None:
        """Not supported."""
        self._not_here("add_mesh")

    def flush(self) -> None:
        """Write every queued event to disk."""
        for file in [self._file, *self._scalars_files.values()]:
            file.flush()

    def close(self) -> None:
        """Flush and close the event files (logging after this raises a RuntimeError)."""
        for file in [self._file, *self._scalars_files.values()]:
            file.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
