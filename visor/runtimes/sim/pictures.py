"""The simulated phone's photos: small pictures drawn from a seed, so their perceptual hashes are real.

The same seed always draws the same picture: a sky or a wall, a ground, and a few shapes in colours the seed
picks. A variant above 0 is a near-duplicate of variant 0, as a phone's burst shots and edited copies are: the
same scene a little brighter, shifted by a few pixels, or saved again with stronger compression. Pictures are
96 x 72 JPEGs (the size a photo's `width` and `height` claim is the profile's).
"""

from __future__ import annotations

import functools
import io
import random

#: The drawn size of every picture: small enough to draw thousands a second, large enough for pHash.
WIDTH, HEIGHT = 96, 72


@functools.lru_cache(maxsize=8192)
def picture(seed: int, variant: int = 0) -> bytes:
    """Return the JPEG of picture `seed`, near-duplicate `variant` (0: the original)."""
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import Image, ImageDraw, ImageEnhance

    chance = random.Random(seed)

    def colour() -> tuple[int, int, int]:
        return chance.randrange(256), chance.randrange(256), chance.randrange(256)

    image = Image.new("RGB", (WIDTH, HEIGHT), colour())
    draw = ImageDraw.Draw(image)
    horizon = chance.randrange(HEIGHT // 3, HEIGHT - 8)
    draw.rectangle((0, horizon, WIDTH, HEIGHT), fill=colour())
    for _ in range(chance.randrange(2, 6)):
        x, y = chance.randrange(WIDTH), chance.randrange(HEIGHT)
        size = chance.randrange(6, 30)
        box = (x - size, y - size // 2, x + size, y + size)
        (draw.ellipse if chance.random() < 0.5 else draw.rectangle)(box, fill=colour())
    quality = 90
    if variant:
        tweak = random.Random(seed * 1_000_003 + variant)
        kind = variant % 3
        if kind == 1:
            image = ImageEnhance.Brightness(image).enhance(1 + tweak.uniform(0.04, 0.1))
        elif kind == 2:
            dx, dy = tweak.randrange(1, 4), tweak.randrange(1, 3)
            image = image.crop((dx, dy, WIDTH, HEIGHT)).resize((WIDTH, HEIGHT))
        else:
            quality = tweak.randrange(35, 60)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return out.getvalue()
