"""Reading the PDFs back in tests: text (pypdf), pages as images (pdftoppm), QR codes (zbarimg).

A missing pdftoppm or zbarimg skips on a laptop and fails in CI (tests.fixtures.services.require).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageChops
from pypdf import PdfReader

from tests.fixtures.services import require


def pdf_text(content: bytes) -> str:
    """All the text of a PDF, whitespace collapsed to single spaces."""
    reader = PdfReader(io.BytesIO(content))
    text = " ".join(page.extract_text() or "" for page in reader.pages)
    return re.sub(r"\s+", " ", text)


def page_texts(content: bytes) -> list[str]:
    reader = PdfReader(io.BytesIO(content))
    return [re.sub(r"\s+", " ", page.extract_text() or "") for page in reader.pages]


def page_count(content: bytes) -> int:
    return len(PdfReader(io.BytesIO(content)).pages)


def render_pages(
    content: bytes, *, dpi: int = 40, first: int | None = None, last: int | None = None
) -> list[Image.Image]:
    """The pages as images, drawn by poppler (a second, independent PDF reader)."""
    require("pdftoppm (poppler-utils)", shutil.which("pdftoppm") is not None)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(content)
        cmd = ["pdftoppm", "-png", "-r", str(dpi)]
        if first is not None:
            cmd += ["-f", str(first)]
        if last is not None:
            cmd += ["-l", str(last)]
        subprocess.run([*cmd, str(source), str(Path(folder) / "page")], check=True, timeout=120)
        images = []
        for path in sorted(
            Path(folder).glob("page-*.png"), key=lambda p: int(p.stem.split("-")[-1])
        ):
            with Image.open(path) as image:
                images.append(image.convert("L").copy())
        return images


def ink_ratio(image: Image.Image) -> float:
    """Share of the pixels that are not (nearly) white."""
    histogram = image.convert("L").histogram()
    dark = sum(histogram[:230])
    return dark / (image.width * image.height)


def red_pixels(content: bytes, *, page: int = 1, dpi: int = 60) -> int:
    """Pixels of the page drawn in the hearts-and-diamonds red."""
    require("pdftoppm (poppler-utils)", shutil.which("pdftoppm") is not None)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(content)
        subprocess.run(
            [
                "pdftoppm",
                "-png",
                "-r",
                str(dpi),
                "-f",
                str(page),
                "-l",
                str(page),
                str(source),
                str(Path(folder) / "page"),
            ],
            check=True,
            timeout=60,
        )
        path = next(Path(folder).glob("page-*.png"))
        with Image.open(path) as image:
            red, green, blue = image.convert("RGB").split()
        mask = ImageChops.multiply(
            ImageChops.multiply(
                red.point(lambda v: 255 if v > 150 else 0),
                green.point(lambda v: 255 if v < 90 else 0),
            ),
            blue.point(lambda v: 255 if v < 90 else 0),
        )
        return mask.histogram()[255]


def decode_qr_codes(content: bytes, *, page: int, dpi: int = 150) -> list[str]:
    """Every QR code zbarimg finds on a page of the PDF."""
    require("zbarimg (zbar-tools)", shutil.which("zbarimg") is not None)
    require("pdftoppm (poppler-utils)", shutil.which("pdftoppm") is not None)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "doc.pdf"
        source.write_bytes(content)
        subprocess.run(
            [
                "pdftoppm",
                "-png",
                "-r",
                str(dpi),
                "-f",
                str(page),
                "-l",
                str(page),
                str(source),
                str(Path(folder) / "page"),
            ],
            check=True,
            timeout=60,
        )
        path = next(Path(folder).glob("page-*.png"))
        done = subprocess.run(
            ["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        return [line for line in done.stdout.splitlines() if line.strip()]
