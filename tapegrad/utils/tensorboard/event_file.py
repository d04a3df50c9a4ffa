"""TensorBoard's event files, written without TensorFlow or protobuf: the few protocol-buffer
messages a SummaryWriter needs, encoded by hand, framed as TFRecords.

Layer L0: the standard library only. A file is a sequence of records, each
`length (uint64 LE) | masked CRC-32C of the length | data | masked CRC-32C of the data`, the data an
`Event` message: wall_time (field 1, double), step (2, int64), then file_version (3, string) for the
first event of a file, or a `Summary` (5) of tagged values. TensorBoard reads these files as written
by TensorFlow or PyTorch (tests/test_tensorboard.py reads them back and checks the framing).
"""

from __future__ import annotations

import struct
from typing import Iterator

FILE_VERSION = b"brain.Event:2"  # what the first event of every file says


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):  # (the Castagnoli polynomial, bit-reversed)
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of `data`, as TFRecords use.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """The CRC as a TFRecord stores it: rotated right by 15 bits plus a constant (so that a CRC of
    data holding CRCs is not degenerate).

    >>> masked_crc(b"")
    2726488792
    """
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord framing `data`.

    >>> len(record(b"abc"))
    19
    """
    length = struct.pack("<Q", len(data))
    return (
        length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))
    )


def records(blob: bytes) -> Iterator[bytes]:
    """The data of each TFRecord in `blob`, each CRC checked (a ValueError names a bad one).

    >>> list(records(record(b"abc")))
    [b'abc']
    """
    at = 0
    while at < len(blob):
        if len(blob) - at < 12:
            raise ValueError(f"truncated TFRecord header at byte {at}")
        header = blob[at : at + 8]
        (length,) = struct.unpack("<Q", header)
        (crc,) = struct.unpack("<I", blob[at + 8 : at + 12])
        if crc != masked_crc(header):
            raise ValueError(f"bad length CRC in the TFRecord at byte {at}")
        data = blob[at + 12 : at + 12 + length]
        (crc,) = struct.unpack("<I", blob[at + 12 + length : at + 16 + length])
        if len(data) != length or crc != masked_crc(data):
            raise ValueError(f"bad or truncated data in the TFRecord at byte {at}")
        yield data
        at += 16 + length


# ---- protocol buffers: the wire format, for the fields the messages here use -------------------
def varint(value: int) -> bytes:
    """An unsigned varint (a negative int64 as its 64-bit two's complement, as protobuf does).

    >>> varint(300)
    b'\\xac\\x02'
    """
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def int_field(number: int, value: int) -> bytes:
    """A varint field (int32, int64, enum)."""
    return varint(number << 3) + varint(value)


def double_field(number: int, value: float) -> bytes:
    """A double (64-bit) field."""
    return varint(number << 3 | 1) + struct.pack("<d", value)


def float_field(number: int, value: float) -> bytes:
    """A float (32-bit) field."""
    return varint(number << 3 | 5) + struct.pack("<f", value)


def bytes_field(number: int, value: bytes | str) -> bytes:
    """A length-delimited field: bytes, a string (UTF-8) or an embedded message."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(data)) + data


def packed_doubles(number: int, values: list[float]) -> bytes:
    """A packed repeated double field."""
    return bytes_field(number, struct.pack(f"<{len(values)}d", *values))


def event(wall_time: float, step: int = 0, *, summary: bytes | None = None) -> bytes:
    """An Event message: the file-version event when `summary` is None, else a Summary's."""
    head = double_field(1, wall_time) + (int_field(2, step) if step else b"")
    if summary is None:
        return head + bytes_field(3, FILE_VERSION)
    return head + bytes_field(5, summary)


def session_start(wall_time: float, step: int) -> bytes:
    """An Event holding SessionLog START (field 6): TensorBoard then drops the events at and after
    `step` that earlier files logged (a SummaryWriter's purge_step, after a restart)."""
    return double_field(1, wall_time) + int_field(2, step) + bytes_field(6, int_field(1, 1))


def summary_value(tag: str, value_field: bytes, metadata: bytes | None = None) -> bytes:
    """A Summary holding one Value: its tag (field 1), the value's own field, plugin metadata
    (field 9)."""
    value = bytes_field(1, tag) + value_field + (bytes_field(9, metadata) if metadata else b"")
    return bytes_field(1, value)


def plugin_metadata(plugin_name: str, content: bytes = b"") -> bytes:
    """SummaryMetadata naming the TensorBoard plugin that shows a value (text, hparams, ...)."""
    return bytes_field(
        1, bytes_field(1, plugin_name) + (bytes_field(2, content) if content else b"")
    )
