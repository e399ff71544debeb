"""Encode the simulated phone's screens as PNG, compressing again only the rows that changed since the last one.

A screenshot a step is the same screen with a character more, a field focused, a toast: most of its 1,920 rows
are the rows of the picture before. The rows are cut into bands, each compressed on its own (a fresh deflate,
ended by a full flush so the bands join into one stream); a band whose pixels are those of the same band in the
last picture encoded takes its bytes from then. Each band's bytes depend only on its own pixels, so a picture's
bytes depend only on the picture: the same state gives the same file whatever was drawn before it. The stream's
checksum is joined from the bands' (Adler-32 composes), so an unchanged band costs a comparison of its pixels.

Rows are written unfiltered: the screens are flat colour, which deflate's matches take as well as a filter's
zeros (`python bench/scaling.py --png` compares).
"""

from __future__ import annotations

import struct
import threading
import zlib
from dataclasses import dataclass

from PIL import Image

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Rows a band holds: a changed line of text redraws one or two bands (about 100 KB of pixels each).
BAND_ROWS = 32
#: deflate's level: 1 is the fastest, and on flat screens within a tenth of level 6's size.
LEVEL = 1
_ADLER_BASE = 65521
#: The end of the deflate stream: an empty final block (fixed Huffman codes), after the bands' full flushes.
_FINAL_BLOCK = b"\x03\x00"
#: zlib's header for a 32 KiB window at the fastest level (RFC 1950): 0x78 0x01.
_ZLIB_HEADER = b"\x78\x01"


@dataclass(frozen=True, slots=True)
class _Band:
    """One band of rows as the last picture had it, and its compressed bytes."""

    pixels: bytes
    deflated: bytes
    adler: int
    length: int  # the unfiltered rows' bytes with their filter bytes: what the checksum covers


class PngEncoder:
    """Encode RGB pictures as PNG, reusing the compressed bands of rows that the last picture shares.

    Safe to share between threads (one picture at a time); a picture of another size starts afresh.
    """

    def __init__(self, band_rows: int = BAND_ROWS) -> None:
        self.band_rows = band_rows
        self._last: list[_Band] = []
        self._size: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def encode(self, image: Image.Image) -> bytes:
        """Return `image` (RGB) as PNG bytes: the same picture, the same bytes."""
        if image.mode != "RGB":
            image = image.convert("RGB")
        width, height = image.size
        pixels = image.tobytes()
        stride = width * 3
        with self._lock:
            last = self._last if self._size == image.size else []
            bands = [
                self._band(
                    pixels, stride, top, min(height, top + self.band_rows), last[number] if number < len(last) else None
                )
                for number, top in enumerate(range(0, height, self.band_rows))
            ]
            self._last, self._size = bands, image.size
        adler = 1
        for band in bands:
            adler = adler32_joined(adler, band.adler, band.length)
        stream = b"".join([_ZLIB_HEADER, *(band.deflated for band in bands), _FINAL_BLOCK, struct.pack(">I", adler)])
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        return b"".join([_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"IDAT", stream), _chunk(b"IEND", b"")])

    @staticmethod
    def _band(pixels: bytes, stride: int, top: int, bottom: int, last: _Band | None) -> _Band:
        own = pixels[top * stride : bottom * stride]
        if last is not None and last.pixels == own:
            return last
        # Filter type 0 (none) before each row.
        rows = b"".join(b"\x00" + own[start : start + stride] for start in range(0, len(own), stride))
        compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        deflated = compressor.compress(rows) + compressor.flush(zlib.Z_FULL_FLUSH)
        return _Band(own, deflated, zlib.adler32(rows), len(rows))


def adler32_joined(first: int, second: int, second_length: int) -> int:
    """Return the Adler-32 of two byte strings joined, from each one's checksum and the second's length.

    Adler-32 keeps A = 1 + the sum of the bytes and B = the sum of A after each byte (both mod 65521). Appending
    n bytes whose own sums are A2 and B2 adds A2 - 1 to A, and to B: n times the first A, plus B2 - n.
    """
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    a = (a1 + a2 - 1) % _ADLER_BASE
    b = (b1 + second_length * a1 + b2 - second_length) % _ADLER_BASE
    return (b << 16) | a


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
