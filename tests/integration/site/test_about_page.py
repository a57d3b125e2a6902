"""The about page says where to report a wrong figure, and where the prices come from in this
very copy (a simulated copy does not claim Polymarket's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.services.publish_site import PublishSiteService
from arena_core.site.build import SiteBuild
from infra.stack import site_contact
from tests.support.scenario import Scenario, build


def about(scenario: Scenario, folder: Path, **options: object) -> str:
    service = PublishSiteService(
        scenario.stores,
        LocalFolderPublisher(folder),
        scenario.blobs,
        scenario.clock,
        scenario.rules,
        **options,  # type: ignore[arg-type]
    )
    service.run()
    return (folder / "about.html").read_text()


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return build(tmp_path_factory.mktemp("site"), weeks=1)


def test_a_named_contact_is_linked(scenario: Scenario, tmp_path: Path) -> None:
    body = about(scenario, tmp_path / "a", contact="figures@example.org")
    assert '<a href="mailto:figures@example.org" rel="noopener noreferrer">' in body
    assert 'id="report"' in body
    body = about(scenario, tmp_path / "b", contact="https://example.org/arena/issues")
    assert '<a href="https://example.org/arena/issues"' in body


def test_without_a_contact_the_page_says_so_and_how_to_check_first(
    scenario: Scenario, tmp_path: Path
) -> None:
    body = about(scenario, tmp_path / "c")
    assert "has named no contact" in body and "arena:contact" in body
    assert "arena analyze" in body


def test_the_prices_are_said_to_be_simulated_where_they_are(
    scenario: Scenario, tmp_path: Path
) -> None:
    simulated = about(scenario, tmp_path / "d", simulated=frozenset({"clock", "prices"}))
    assert "prices are a seeded simulation" in simulated
    assert "prices are Polymarket's own" not in simulated
    live = about(scenario, tmp_path / "e")
    assert "prices are Polymarket's own" in live and "seeded simulation" not in live


@pytest.mark.parametrize(
    "contact",
    [
        "javascript:alert(1)",
        'https://example.org/" onmouseover="alert(1)',
        "someone at example.org",
    ],
)
def test_a_contact_that_is_no_address_is_never_linked(
    contact: str, scenario: Scenario, tmp_path: Path
) -> None:
    assert SiteBuild(contact=contact).contact_href is None
    body = about(scenario, tmp_path / "f", contact=contact)
    assert 'href="javascript' not in body and 'onmouseover="' not in body
    with pytest.raises(ValueError, match="arena:contact"):
        site_contact(contact)


def test_a_deployment_checks_the_contact_at_synth() -> None:
    assert site_contact(None) is None
    assert site_contact("figures@example.org") == "figures@example.org"
