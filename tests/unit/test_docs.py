"""The documentation keeps to the code: its links lead somewhere, and its examples run as shown.

`make docs` (mkdocs --strict) checks the site's links too, but needs the docs tools; these checks
need only the standard library, so that `make test` catches a page broken by a change of code.
"""

from __future__ import annotations

import contextlib
import io
import re
import unicodedata
from pathlib import Path

import pytest

import booking_core
from adapters.catalog import parse_document, validate_catalog

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_INLINE_CODE = re.compile(r"`[^`]*`")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _slug(heading: str) -> str:
    """The anchor MkDocs (Python-Markdown's toc) gives a heading; GitHub's agrees for ours."""
    text = heading.replace("`", "").replace("*", "")  # code and emphasis marks are not in the text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    return {_slug(m.group(1)) for line in _prose(page.read_text("utf-8")) if (m := _HEADING.match(line))}


def _links(page: Path) -> list[str]:
    found = []
    for line in _prose(page.read_text("utf-8")):
        found += _LINK.findall(_INLINE_CODE.sub("", line))
    return found


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file.relative_to(ROOT)}")
        elif anchor and (file.suffix != ".md" or anchor not in _anchors(file)):
            broken.append(f"{target}: no heading with the anchor #{anchor}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_slug_is_mkdocs_own() -> None:
    assert _slug("Payments: one state machine, one rule for every change") == (
        "payments-one-state-machine-one-rule-for-every-change"
    )
    assert _slug("The rule: lock, re-read, decide, store") == "the-rule-lock-re-read-decide-store"
    assert _slug("Using `booking_core` as a library") == "using-booking_core-as-a-library"


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\n[b](b.md#nowhere) and `[c](c.md)` in code\n", "utf-8")
    (tmp_path / "b.md").write_text("# B\n\n## Somewhere\n", "utf-8")
    assert _links(tmp_path / "a.md") == ["b.md#nowhere"]
    assert _anchors(tmp_path / "b.md") == {"b", "somewhere"}


def _examples(page: Path) -> list[tuple[str, str | None]]:
    """Each ```python block of ``page``, with the text of the plain block after "prints" if one follows."""
    text = page.read_text("utf-8")
    blocks = re.finditer(r"```python\n(.*?)```\n(?:\s*prints\s*\n\s*```\n(.*?)```)?", text, re.S)
    return [(m.group(1), m.group(2)) for m in blocks]


def test_the_domain_library_page_has_examples() -> None:
    examples = _examples(DOCS / "domain-library.md")
    assert len(examples) >= 2
    assert all(printed for _, printed in examples)


@pytest.mark.parametrize("number", range(len(_examples(DOCS / "domain-library.md"))))
def test_the_domain_library_examples_print_what_the_page_shows(number: int) -> None:
    code, printed = _examples(DOCS / "domain-library.md")[number]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        compiled = compile(code, f"domain-library.md example {number + 1}", "exec")
        exec(compiled, {"__name__": "__doc_example__"})  # noqa: S102  the page's own example
    assert out.getvalue() == (printed or "")


def test_the_domain_library_page_lists_the_public_api() -> None:
    page = (DOCS / "domain-library.md").read_text("utf-8")
    section = page[page.index("## The public API") : page.index("## Stability")]
    rows = [line.split("|")[2] for line in section.splitlines() if line.startswith("| ") and "`" in line]
    listed = {name for row in rows for name in re.findall(r"`([A-Za-z_]+)`", row)}
    assert listed == set(booking_core.__all__)


def test_the_operator_guides_catalog_example_is_a_valid_catalog() -> None:
    page = (DOCS / "operator-guide.md").read_text("utf-8")
    example = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert example is not None
    spec = validate_catalog(parse_document(example.group(1), "yaml"))
    assert [venue.slug for venue in spec.venues] == ["center-court"]
    assert len(spec.venues[0].resources[0].schedules) == 2
