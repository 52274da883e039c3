"""Draw the integration's brand icon (``brand/icon.png`` and ``icon@2x.png``), reproducibly.

Home Assistant 2026.10 serves a custom integration's brand images from its ``brand/``
folder. The icon: a house whose window is a magnifying glass (finding the few devices
that matter in a home), white on blue. Run: ``scripts/python tools/draw_brand_icon.py``.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

BRAND = Path(__file__).resolve().parent.parent / "custom_components" / "context_retrieval" / "brand"
BLUE = (3, 169, 244, 255)
WHITE = (255, 255, 255, 255)


def draw(size: int) -> Image.Image:
    """Return the icon at ``size`` pixels square."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    unit = size / 256
    pen.rounded_rectangle((0, 0, size - 1, size - 1), radius=int(48 * unit), fill=BLUE)
    line = max(2, int(16 * unit))
    roof = [(40 * unit, 124 * unit), (128 * unit, 48 * unit), (216 * unit, 124 * unit)]
    pen.line(roof, fill=WHITE, width=line, joint="curve")
    pen.line(
        [
            (64 * unit, 112 * unit),
            (64 * unit, 208 * unit),
            (192 * unit, 208 * unit),
            (192 * unit, 112 * unit),
        ],
        fill=WHITE,
        width=line,
        joint="curve",
    )
    centre, radius = (120 * unit, 146 * unit), 30 * unit
    pen.ellipse(
        (centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius),
        outline=WHITE,
        width=line,
    )
    pen.line(
        [(centre[0] + 22 * unit, centre[1] + 22 * unit), (168 * unit, 192 * unit)], fill=WHITE, width=line
    )
    return image


def main() -> None:
    """Write both sizes."""
    BRAND.mkdir(exist_ok=True)
    draw(256).save(BRAND / "icon.png", optimize=True)
    draw(512).save(BRAND / "icon@2x.png", optimize=True)


if __name__ == "__main__":
    main()
