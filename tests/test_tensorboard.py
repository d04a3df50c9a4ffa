"""tg.utils.tensorboard.SummaryWriter: TensorBoard's event files written by hand. The files are read
back here with a small protobuf reader (framing, CRCs, every field logged); where TensorBoard is
installed its own reader must read them too."""

from __future__ import annotations

import glob
import os
import struct
import zlib

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.utils.tensorboard import SummaryWriter
from tapegrad.utils.tensorboard import event_file as E
from tapegrad.utils.tensorboard import summaries as S


def fields(message: bytes) -> list[tuple[int, object]]:
    """(field number, value) of a protobuf message: varints as ints, doubles/floats as floats,
    length-delimited ones as bytes."""
    out, at = [], 0

    def varint() -> int:
        nonlocal at
        value = shift = 0
        while True:
            byte = message[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while at < len(message):
        key = varint()
        number, kind = key >> 3, key & 7
        if kind == 0:
            out.append((number, varint()))
        elif kind == 1:
            out.append((number, struct.unpack("<d", message[at : at + 8])[0]))
            at += 8
        elif kind == 5:
            out.append((number, struct.unpack("<f", message[at : at + 4])[0]))
            at += 4
        else:
            assert kind == 2, f"wire type {kind}"
            size = varint()
            out.append((number, message[at : at + size]))
            at += size
    return out


def events_in(path: str) -> list[dict]:
    """Each event of one file as {field number: value}."""
    with open(path, "rb") as f:
        return [dict(fields(data)) for data in E.records(f.read())]


def the_file(directory) -> str:
    (path,) = glob.glob(os.path.join(str(directory), "events.out.tfevents.*"))
    return path


def logged_values(path: str) -> list[tuple[int, str, dict]]:
    """(step, tag, the Value's fields) of every summary event in a file."""
    found = []
    for event in events_in(path):
        if 5 in event:
            for number, value in fields(event[5]):
                assert number == 1
                v = dict(fields(value))
                found.append((event.get(2, 0), v[1].decode(), v))
    return found


def test_crc32c_is_castagnolis_and_records_are_checked():
    assert E.crc32c(b"123456789") == 0xE3069283  # (the standard check value)
    assert E.crc32c(b"") == 0
    framed = E.record(b"payload") + E.record(b"")
    assert list(E.records(framed)) == [b"payload", b""]
    broken = bytearray(framed)
    broken[14] ^= 1  # a bit of the first record's data
    with pytest.raises(ValueError, match="bad or truncated data"):
        list(E.records(bytes(broken)))


def test_varints_as_protobuf_encodes_them():
    assert E.varint(1) == b"\x01"
    assert E.varint(300) == b"\xac\x02"
    assert E.varint(-1) == b"\xff" * 9 + b"\x01"  # (an int64 -1: ten bytes)


def test_scalars_are_logged_with_step_and_wall_time(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_scalar("Loss/train", tg.tensor(1.0 / (step + 1)), step)
        writer.add_scalar("lr", np.float64(0.5), 7, walltime=123.0)
    events = events_in(the_file(tmp_path))
    assert events[0][3] == b"brain.Event:2"  # the first event: the file version
    logged = logged_values(the_file(tmp_path))
    assert [(step, tag) for step, tag, _ in logged] == [
        (0, "Loss/train"),
        (1, "Loss/train"),
        (2, "Loss/train"),
        (7, "lr"),
    ]
    assert [v[2] for _, _, v in logged] == pytest.approx([1.0, 0.5, 1 / 3, 0.5])
    assert events[-1][1] == 123.0


def test_a_scalar_must_be_one_number(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(ValueError, match="single number"):
            writer.add_scalar("x", tg.ones(2), 0)


def test_add_scalars_writes_one_run_per_curve(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalars("run/loss", {"train": 1.0, "test": 2.0}, 4)
    train = logged_values(the_file(tmp_path / "run_loss_train"))
    test = logged_values(the_file(tmp_path / "run_loss_test"))
    assert [(s, t, v[2]) for s, t, v in train] == [(4, "run/loss", 1.0)]
    assert [(s, t, v[2]) for s, t, v in test] == [(4, "run/loss", 2.0)]


def test_histograms_hold_counts_and_moments(tmp_path):
    values = np.array([-1.5, 0.25, 0.5, 2.0, 2.0])
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_histogram("w", tg.tensor(values), 3, bins=[-2.0, 0.0, 1.0, 3.0, 4.0])
    ((step, tag, value),) = logged_values(the_file(tmp_path))
    histo = fields(value[5])
    scalars = {n: v for n, v in histo if n <= 5}
    assert scalars == {1: -1.5, 2: 2.0, 3: 5.0, 4: values.sum(), 5: values @ values}
    limits = struct.unpack("<3d", dict(histo)[6])  # (the empty last bucket left out)
    counts = struct.unpack("<3d", dict(histo)[7])
    assert limits == (0.0, 1.0, 3.0) and counts == (1.0, 2.0, 2.0)


def test_default_histogram_buckets_are_tensorflows():
    bins = S.tensorflow_bins()
    assert bins[774] == 0.0 and bins[775] == pytest.approx(1e-12) and bins[-1] < 1e20
    assert np.all(np.diff(bins) > 0)
    _, _, value = logged_values_of(S.histogram("h", np.linspace(-3, 3, 50)))
    counts = struct.unpack(f"<{len(dict(fields(value[5]))[7]) // 8}d", dict(fields(value[5]))[7])
    assert sum(counts) == 50


def logged_values_of(summary: bytes) -> tuple[int, str, dict]:
    ((number, value),) = fields(summary)
    v = dict(fields(value))
    return 0, v[1].decode(), v


def test_images_are_pngs_of_the_right_size(tmp_path):
    image = np.zeros((3, 4, 5), np.float32)
    image[0] = 1.0  # red
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_image("img", tg.tensor(image), 1)
        writer.add_images("batch", np.ones((10, 1, 2, 3)), 1)
    logged = {tag: dict(fields(v[4])) for _, tag, v in logged_values(the_file(tmp_path))}
    assert (logged["img"][1], logged["img"][2], logged["img"][3]) == (4, 5, 3)
    assert (logged["batch"][1], logged["batch"][2]) == (4, 24)  # 8 to a row, 2 rows
    png = logged["img"][4]
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    idat = png.index(b"IDAT")
    (size,) = struct.unpack(">I", png[idat - 4 : idat])
    rows = np.frombuffer(zlib.decompress(png[idat + 4 : idat + 4 + size]), np.uint8)
    pixels = rows.reshape(4, 1 + 5 * 3)[:, 1:].reshape(4, 5, 3)
    assert (pixels[..., 0] == 255).all() and (pixels[..., 1:] == 0).all()


def test_image_layouts_are_checked():
    assert S.to_hwc(np.zeros((2, 3)), "HW").shape == (2, 3, 3)
    assert S.to_hwc(np.zeros((2, 3, 4)), "HWC").shape == (2, 3, 4)
    with pytest.raises(ValueError, match="dataformats"):
        S.to_hwc(np.zeros((2, 3)), "CHW")


def test_text_is_a_string_tensor_for_the_text_plugin(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_text("notes", "hello *world*", 2)
    ((step, tag, value),) = logged_values(the_file(tmp_path))
    tensor = fields(value[8])
    assert (step, tag) == (2, "notes")
    assert (1, 7) in tensor and (8, b"hello *world*") in tensor  # DT_STRING, the text
    plugin = dict(fields(dict(fields(value[9]))[1]))
    assert plugin[1] == b"text"


def test_closed_writers_refuse_and_unsupported_kinds_say_so(tmp_path):
    writer = SummaryWriter(str(tmp_path))
    writer.close()
    with pytest.raises(RuntimeError, match="closed"):
        writer.add_scalar("x", 1.0)
    with pytest.raises(NotImplementedError, match="add_graph"):
        writer.add_graph(None)


def test_events_wait_in_the_queue_until_flushed(tmp_path):
    writer = SummaryWriter(str(tmp_path), max_queue=100)
    writer.add_scalar("x", 1.0, 1)
    assert logged_values(the_file(tmp_path)) == []
    writer.flush()
    assert len(logged_values(the_file(tmp_path))) == 1
    writer.close()


def test_default_log_dir_is_pytorchs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_lr0.1")
    writer.close()
    parts = writer.get_logdir().split(os.sep)
    assert parts[0] == "runs" and parts[1].endswith("_lr0.1")
    assert os.path.isdir(writer.get_logdir())


def test_tensorboard_itself_reads_the_files(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", 0.5, 3)
        writer.add_histogram("w", np.arange(10.0), 3)
        writer.add_image("img", np.ones((3, 2, 2)), 3)
        writer.add_text("t", "hi", 3)
    reader = accumulator.EventAccumulator(str(tmp_path))
    reader.Reload()
    assert [(e.step, e.value) for e in reader.Scalars("loss")] == [(3, 0.5)]
    assert reader.Histograms("w")[0].histogram_value.num == 10
    assert reader.Images("img")[0].width == 2
    assert reader.Tensors("t")[0].tensor_proto.string_val == [b"hi"]
