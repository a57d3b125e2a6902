"""Regenerate the site and publish what changed.

Global pages (leaderboard, model pages, methodology, data index, leaderboard exports) are
rendered every time from bounded reads. Cohort and agent pages and their exports are rendered
for active cohorts, and once more for a completed cohort that has not been published since it
completed; older completed cohorts are left as published, so the cost of a regeneration does not
grow with history.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.publisher import PublishReport, SitePublisher
from arena_core.ports.repository import Repository
from arena_core.site.collect import SiteCollector
from arena_core.site.render import SiteRenderer, recent_decisions

COMPLETION_MARK = "data/cohorts/{cohort_id}/completed"


@dataclass(frozen=True)
class SiteReport:
    files: int
    uploaded: int
    cohorts_rendered: tuple[str, ...]


class PublishSiteService:
    def __init__(
        self, repo: Repository, publisher: SitePublisher, blobs: BlobStore | None, clock: Clock
    ) -> None:
        self._repo = repo
        self._publisher = publisher
        self._blobs = blobs
        self._clock = clock

    def _live(self, cohorts: list[Cohort], published: dict[str, str]) -> list[Cohort]:
        return [
            c
            for c in cohorts
            if c.status is CohortStatus.ACTIVE
            or COMPLETION_MARK.format(cohort_id=c.cohort_id) not in published
        ]

    def run(self) -> SiteReport:
        now = self._clock.now()
        collector = SiteCollector(self._repo, self._blobs, now)
        renderer = SiteRenderer(now)
        cohorts = self._repo.cohorts()
        live = self._live(cohorts, self._publisher.published())
        cohort_views = [collector.cohort_view(c) for c in live]
        families = collector.family_views(cohorts)
        recent_decisions(families, cohort_views)
        files = renderer.global_files(families, cohorts)
        for view in cohort_views:
            files.update(renderer.cohort_files(view))
            if view.cohort.status is CohortStatus.COMPLETED:
                files[COMPLETION_MARK.format(cohort_id=view.cohort.cohort_id)] = b"final\n"
        report: PublishReport = self._publisher.publish(files)
        return SiteReport(len(files), len(report.uploaded), tuple(c.cohort_id for c in live))
