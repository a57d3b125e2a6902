"""The last publications of a site, as its state keeps them (``publication/state.py``): what
``arena status`` lists, for a deployed bucket or a demo's folder."""

from __future__ import annotations

from arena_core.adapters.manifest import ROOT, Root
from arena_core.errors import ArenaError
from arena_core.ports.publisher import SitePublisher
from arena_core.publication.state import Report, State


def last_publications(publisher: SitePublisher) -> tuple[Report, ...]:
    """The site's last publications, newest last (none when it was never published, or its
    state cannot be read)."""
    try:
        body = publisher.get(ROOT)
    except ArenaError:
        return ()
    root = Root(body)
    state, _ = State.load(root.state or None, publisher.identity)
    return tuple(state.reports)
