"""tg.utils.tensorboard: PyTorch's SummaryWriter (torch.utils.tensorboard), writing TensorBoard's
event files with no TensorFlow, TensorBoard or protobuf installed.

Layer L5 (utils): re-exports writer.py (the writer), summaries.py (the messages) and event_file.py
(the file format).
"""

from __future__ import annotations

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
