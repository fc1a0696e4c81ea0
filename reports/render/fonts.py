"""Where the figures' Chinese words get their glyphs: a CJK font found on disk by file name.

Found without importing matplotlib (slow to import), so the render cache can be keyed on it: a
font installed after a build gives Chinese figure labels at the next build.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

# file name -> the family matplotlib knows it by (a .ttc holds several faces; the simplified
# Chinese one is asked for by name, so Han characters take their mainland forms)
CJK_FONTS = {
    "NotoSansCJK-Regular.ttc": "Noto Sans CJK SC",  # Debian/Ubuntu fonts-noto-cjk
    "NotoSansCJKsc-Regular.otf": "Noto Sans CJK SC",
    "NotoSansSC-Regular.otf": "Noto Sans SC",
    "SourceHanSansSC-Regular.otf": "Source Han Sans SC",
    "wqy-zenhei.ttc": "WenQuanYi Zen Hei",  # fonts-wqy-zenhei
}
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"),
             Path.home() / ".local" / "share" / "fonts", Path.home() / ".fonts",
             Path("/Library/Fonts"), Path("/System/Library/Fonts"))
# said by the build when none is found
HINT = ("the Chinese figures carry English labels: no CJK font found "
        "(Debian/Ubuntu: apt install fonts-noto-cjk)")


@cache  # one build asks several times; a font installed meanwhile waits for the next
def cjk_font() -> tuple[Path, str] | None:
    """The first CJK font of ``CJK_FONTS`` (in its order) under ``FONT_DIRS``: (file, family)."""
    found: dict[str, Path] = {}
    for folder in FONT_DIRS:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.name in CJK_FONTS:
                    found.setdefault(path.name, path)
    for name, family in CJK_FONTS.items():
        if name in found:
            return found[name], family
    return None
