"""Where a week goes: a profile's time grouped by component and by stage, on a made-up
profile whose answer is known, and on a real one."""

from __future__ import annotations

import pstats
import threading
from typing import Any

import pytest

from arena_local.demo.profiling import (
    UNCALLED,
    WAITING,
    ThreadProfiles,
    component_of,
    component_seconds,
    report_lines,
    stage_seconds,
)

SITE = "/venv/lib/python3.12/site-packages"
STDLIB = "/usr/lib/python3.12"
MOTO_QUERY = (f"{SITE}/moto/dynamodb/models/table.py", 749, "query")
RENDER = ("/repo/layers/arena_core/arena_core/site/render.py", 10, "render")
PARSE = (f"{SITE}/botocore/parsers.py", 343, "_parse_shape")
DEEPCOPY = (f"{STDLIB}/copy.py", 118, "deepcopy")
DUMPS = ("~", 0, "<built-in method _json.encode>")
SLEEP = ("~", 0, "<built-in method time.sleep>")
PASS = ("/repo/layers/arena_core/arena_core/services/snapshot.py", 200, "run")
ORPHAN = (f"{STDLIB}/threading.py", 1000, "_bootstrap")


def entry(self_seconds: float, total: float, callers: dict[Any, float]) -> tuple[Any, ...]:
    """A pstats entry: calls, primitive calls, self and inclusive seconds, and per caller
    (calls, primitive calls, self seconds under that caller, inclusive seconds)."""
    by_caller = {caller: (1, 1, seconds, seconds) for caller, seconds in callers.items()}
    return 1, 1, self_seconds, total, by_caller


def made_up() -> pstats.Stats:
    stats = pstats.Stats()
    stats.stats = {  # type: ignore[attr-defined]
        PASS: entry(1.0, 20.0, {}),
        MOTO_QUERY: entry(4.0, 9.0, {PASS: 9.0}),
        RENDER: entry(2.0, 5.0, {PASS: 5.0}),
        PARSE: entry(3.0, 3.0, {PASS: 3.0}),
        # C code: 1 s under moto's query, 3 s under the renderer
        DUMPS: entry(4.0, 4.0, {MOTO_QUERY: 1.0, RENDER: 3.0}),
        # the standard library, called by moto only
        DEEPCOPY: entry(2.0, 2.0, {MOTO_QUERY: 2.0}),
        SLEEP: entry(7.0, 7.0, {PASS: 7.0}),
        ORPHAN: entry(0.5, 0.5, {}),
    }
    return stats


def test_time_is_charged_where_the_code_lives_and_c_code_to_its_callers() -> None:
    found = component_seconds(made_up())
    assert found == pytest.approx(
        {
            "moto: DynamoDB": 4.0 + 1.0 + 2.0,
            "publication (arena_core site, publication, dataset)": 2.0 + 3.0,
            "botocore and boto3 (requests, parsing)": 3.0,
            "snapshot pass (arena_core service)": 1.0,
            WAITING: 7.0,
            UNCALLED: 0.5,
        }
    )
    assert next(iter(found)) == "moto: DynamoDB"  # largest first


def test_components_by_path() -> None:
    assert component_of(MOTO_QUERY) == "moto: DynamoDB"
    assert component_of((f"{SITE}/moto/stepfunctions/x.py", 1, "f")) == "moto: Step Functions"
    assert component_of(("/repo/local/arena_local/standins/policy.py", 1, "f")) == (
        "stand-in models"
    )
    assert component_of((f"{SITE}/somelib/x.py", 1, "f")) == "other libraries"
    assert component_of(DEEPCOPY) is None  # charged to its callers
    assert component_of(DUMPS) is None


def test_stages_are_read_from_inclusive_time() -> None:
    seconds = stage_seconds(made_up())
    lines = report_lines(made_up())
    assert seconds[1] == 20.0  # the snapshot pass
    assert sum(seconds) == 20.0  # no other stage ran
    assert any("moto: DynamoDB" in line and "7.0 s" in line for line in lines)
    assert any(WAITING in line and "7.0 s" in line for line in lines)


def test_a_real_profile_of_threads() -> None:
    """What runs on another thread is seen (Python 3.12's cProfile watches every thread)."""
    profiles = ThreadProfiles()

    def spin() -> None:
        sum(i * i for i in range(20000))

    with profiles.active():
        worker = threading.Thread(target=spin)
        worker.start()
        worker.join()
    names = {function[2] for function in profiles.stats().stats}  # type: ignore[attr-defined]
    assert "spin" in names
