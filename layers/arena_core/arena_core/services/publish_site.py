"""Regenerate the site and publish what changed.

Global pages (leaderboard, model pages, methodology, data index, leaderboard exports) are
rendered every time from bounded reads. Cohort and agent pages and their exports are rendered
for active cohorts, and once more for a completed cohort that has not been published since it
completed; older completed cohorts are left as published, so the cost of a regeneration does not
grow with history. A cohort's decision pages, prompts and raw replies (read from the audit
bucket) are rendered only when its decisions changed since they were last published.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.publisher import PublishReport, SitePublisher, digest
from arena_core.site.collect import CohortView, SiteCollector, SiteStores
from arena_core.site.decision_details import decisions_marker
from arena_core.site.render import SiteRenderer, recent_decisions
from arena_core.site.statistics import RankingRules

COMPLETION_MARK = "data/cohorts/{cohort_id}/completed"
DECISIONS_MARK = "data/cohorts/{cohort_id}/decisions.txt"  # what its decision pages show


class SiteReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    files: int
    uploaded: int
    cohorts_rendered: tuple[str, ...]


class PublishSiteService:
    def __init__(
        self,
        stores: SiteStores,
        publisher: SitePublisher,
        blobs: BlobStore | None,
        clock: Clock,
        rules: RankingRules | None = None,
    ) -> None:
        self._rules = rules or RankingRules()
        self._stores = stores
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

    @staticmethod
    def _read_changed_details(
        view: CohortView, collector: SiteCollector, published: dict[str, str]
    ) -> None:
        """Read the cohort's decisions in full (prompts, replies) only when they changed since
        they were last published: their pages and tables are otherwise left as they are."""
        mark = DECISIONS_MARK.format(cohort_id=view.cohort.cohort_id)
        if published.get(mark) != digest(decisions_marker(view.records())):
            view.details = collector.details(view)

    def run(self) -> SiteReport:
        now = self._clock.now()
        collector = SiteCollector(self._stores, self._blobs, now, self._rules)
        renderer = SiteRenderer(now)
        cohorts = self._stores.cohorts.cohorts()
        published = self._publisher.published()
        live = self._live(cohorts, published)
        cohort_views = [collector.cohort_view(c) for c in live]
        for view in cohort_views:
            self._read_changed_details(view, collector, published)
        boards = collector.leaderboards(cohorts)
        for board in boards:
            recent_decisions(board.families, cohort_views)
        files = renderer.global_files(boards, cohorts)
        for view in cohort_views:
            files.update(renderer.cohort_files(view))
            if view.details is not None:
                files[DECISIONS_MARK.format(cohort_id=view.cohort.cohort_id)] = decisions_marker(
                    view.records()
                )
            if view.cohort.status is CohortStatus.COMPLETED:
                files[COMPLETION_MARK.format(cohort_id=view.cohort.cohort_id)] = b"final\n"
        report: PublishReport = self._publisher.publish(files)
        return SiteReport(
            files=len(files),
            uploaded=len(report.uploaded),
            cohorts_rendered=tuple(c.cohort_id for c in live),
        )
