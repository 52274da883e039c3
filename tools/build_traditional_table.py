"""Build ``data/traditional_characters.json``: Traditional (and Taiwan, Hong Kong) characters → Simplified.

The engine folds a Traditional character to its Simplified form wherever it compares text
(``core/text.normalize``), so 客廳的電燈 finds 客厅的电灯 and a device named 書枱燈 is found
when asked for 书枱灯. The table is OpenCC's character conversion (t2s, tw2s, hk2s; OpenCC 1.4.2,
Apache-2.0), taken one character at a time over the CJK blocks: only characters OpenCC changes
are kept. Run from the repository root with OpenCC installed in the project's environment:

    .venv/bin/uv pip install --python .venv/bin/python opencc==1.4.2
    scripts/python tools/build_traditional_table.py
"""

from __future__ import annotations

import json
from pathlib import Path

import opencc

OUTPUT = Path("custom_components/context_retrieval/data/traditional_characters.json")
CONFIGS = ("t2s", "tw2s", "hk2s")
BLOCKS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
"""CJK Extension A, Unified Ideographs and Compatibility Ideographs."""


def build() -> dict[str, str]:
    """Return every character OpenCC converts to a single other character.

    A character that is itself the Simplified form of another (么, of 麼) is kept as it is,
    although Hong Kong's conventions fold it further (么 → 幺).
    """
    table: dict[str, str] = {}
    for config in CONFIGS:
        converter = opencc.OpenCC(config)
        for low, high in BLOCKS:
            for code in range(low, high + 1):
                char = chr(code)
                simplified = converter.convert(char)
                if simplified != char and len(simplified) == 1:
                    table.setdefault(char, simplified)
    simplified_forms = set(table.values())
    return {char: simple for char, simple in sorted(table.items()) if char not in simplified_forms}


def main() -> None:
    """Write the table."""
    table = build()
    document = {
        "source": f"OpenCC {opencc.__version__} ({', '.join(CONFIGS)}), character by character; Apache-2.0",
        "characters": table,
    }
    OUTPUT.write_text(json.dumps(document, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(table)} characters → {OUTPUT}")


if __name__ == "__main__":
    main()
