"""Read the pixels of a browser screenshot (8-bit RGB/RGBA PNG, not interlaced) with zlib.

Enough to check what the page drew: :func:`longest_runs` finds how wide the
bars of a given colour are, row by row.
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel (8-bit RGB, RGBA)


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    rows: list[bytes]
    channels: int

    def rgb(self, x: int, y: int) -> tuple[int, int, int]:
        i = x * self.channels
        row = self.rows[y]
        return row[i], row[i + 1], row[i + 2]


def read_png(path: Path) -> Image:
    data = path.read_bytes()
    if not data.startswith(SIGNATURE):
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = len(SIGNATURE), bytearray(), b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError(
            f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}"
        )
    channels = CHANNELS[colour]
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return Image(width, height, rows, channels)


def unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            corner = previous[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + paeth(left, up, corner)) & 0xFF
        elif kind != 0:
            raise ValueError(f"unknown PNG filter {kind}")


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def longest_runs(image: Image, colour: tuple[int, int, int]) -> list[int]:
    """Per horizontal band of rows holding ``colour`` exactly: its longest run, top to bottom.

    Consecutive rows with the colour form one band (one bar, or one legend
    swatch); each band reports the widest run found in any of its rows. Solid
    fills are drawn in their exact colour; only their anti-aliased edges differ.
    """
    pixel = bytes(colour) + (b"\xff" if image.channels == 4 else b"")
    pattern = re.compile(b"(?:" + re.escape(pixel) + b")+")
    bands: list[int] = []
    in_band = False
    for row in image.rows:
        longest = max(
            (
                (m.end() - m.start()) // image.channels
                for m in pattern.finditer(row)
                if m.start() % image.channels == 0
            ),
            default=0,
        )
        if longest:
            if in_band:
                bands[-1] = max(bands[-1], longest)
            else:
                bands.append(longest)
        in_band = bool(longest)
    return bands
