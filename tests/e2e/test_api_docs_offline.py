"""The interactive API page at ``/schema`` loads everything from the service itself (issue 26): it works
without internet, and no third party learns who reads the documentation."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.support.http_fixtures import Api, start

_REFERENCES = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")


@pytest.fixture
def api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """The app on SQLite: the page does not depend on the storage."""
    yield from start(request.getfixturevalue("loaded_sqlite_url"))


def test_the_page_references_only_the_services_own_files(api: Api) -> None:
    page = api.client.get("/schema")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    references = _REFERENCES.findall(page.text)
    assert len(references) >= 4  # the script, the preset, the styles and the icon
    assert all(url.startswith("/schema/assets/") for url in references), references
    assert "http://" not in page.text
    assert "https://" not in page.text


@pytest.mark.parametrize(
    ("asset", "kind", "marker"),
    [
        ("swagger-ui-bundle.js", "javascript", "SwaggerUIBundle"),
        ("swagger-ui-standalone-preset.js", "javascript", "SwaggerUIStandalonePreset"),
        ("swagger-ui.css", "text/css", ".swagger-ui"),
        ("favicon-32x32.png", "image/png", "PNG"),
    ],
)
def test_every_file_the_page_loads_is_served(api: Api, asset: str, kind: str, marker: str) -> None:
    page = api.client.get("/schema").text
    assert f"/schema/assets/{asset}" in page
    response = api.client.get(f"/schema/assets/{asset}")
    assert response.status_code == 200
    assert kind in response.headers["content-type"]
    assert marker.encode() in response.content


def test_an_unknown_asset_is_404_json(api: Api) -> None:
    response = api.client.get("/schema/assets/nothing-here.js")
    assert response.status_code == 404
