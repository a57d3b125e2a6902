"""One cohort per UTC week, agents created with it, even under concurrent openers."""

import threading
from datetime import timedelta

from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.lineup import default_lineup
from arena_core.domain.rules import STARTING_BALANCE
from arena_core.ports.stores import Stores
from tests.support.builders import WEEK0, open_cohort


def test_opening_a_week_creates_the_cohort_and_all_agents(stores: Stores) -> None:
    cohort, agents = open_cohort(stores)
    assert stores.cohorts.get_cohort(cohort.cohort_id) == cohort
    assert len(agents) == 10
    assert all(a.cash == STARTING_BALANCE and a.version == 0 for a in agents)
    assert stores.ledger.get_agent(agents[0].agent_id) == agents[0]
    assert [c.cohort_id for c in stores.cohorts.active_cohorts()] == [cohort.cohort_id]


def test_opening_the_same_week_again_returns_the_existing_cohort(stores: Stores) -> None:
    first, _ = open_cohort(stores)
    later = Cohort.open(WEEK0 + timedelta(days=3), default_lineup(include_baselines=False))
    again, created = stores.cohorts.create_cohort(later, later.agents())
    assert not created
    assert again == first
    assert len(stores.cohorts.agents(first.cohort_id)) == 10  # the lineup frozen at first opening


def test_ten_concurrent_openers_make_one_cohort(stores: Stores) -> None:
    results: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(10)

    def opener(offset: int) -> None:
        cohort = Cohort.open(WEEK0 + timedelta(minutes=offset), default_lineup())
        barrier.wait()
        _, created = stores.cohorts.create_cohort(cohort, cohort.agents())
        with lock:
            results.append(created)

    threads = [threading.Thread(target=opener, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 9 + [True]
    assert len(stores.cohorts.active_cohorts()) == 1


def test_first_decision_and_completion(stores: Stores) -> None:
    cohort, _ = open_cohort(stores)
    stores.cohorts.mark_first_decision(cohort.cohort_id, WEEK0 + timedelta(minutes=5))
    stores.cohorts.mark_first_decision(cohort.cohort_id, WEEK0 + timedelta(days=7))
    stored = stores.cohorts.get_cohort(cohort.cohort_id)
    assert stored is not None
    assert stored.first_decision_at == WEEK0 + timedelta(minutes=5)
    assert stores.cohorts.complete_cohort(cohort.cohort_id, WEEK0 + timedelta(days=9))
    assert not stores.cohorts.complete_cohort(cohort.cohort_id, WEEK0 + timedelta(days=10))
    done = stores.cohorts.get_cohort(cohort.cohort_id)
    assert done is not None
    assert done.status is CohortStatus.COMPLETED
    assert stores.cohorts.active_cohorts() == []
