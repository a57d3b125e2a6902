"""In-memory implementations of the store roles, the blob store and the commitments (tests,
benchmarks; the commitments also over a folder, for the demo's site).

The roles share one ``MemoryState`` guarded by one re-entrant lock: every method checks its
conditions and applies its changes inside the lock, which is what the DynamoDB adapter gets from
conditional writes and transactions. They serve the service tests, the stateful comparison
against the DynamoDB adapter, and quick local runs.
"""

from arena_core.ports.stores import Stores
from arena_local.memory.blobs import InMemoryBlobStore
from arena_local.memory.cohorts import MemoryCohortStore
from arena_local.memory.commitments import FolderCommitmentStore, InMemoryCommitmentStore
from arena_local.memory.decisions import MemoryDecisionStore
from arena_local.memory.ledger import MemoryLedgerStore
from arena_local.memory.lineup import MemoryLineupStore
from arena_local.memory.markets import MemoryMarketStore
from arena_local.memory.panel import MemoryPanelStore
from arena_local.memory.state import MemoryState
from arena_local.memory.views import MemoryViewStore

__all__ = [
    "FolderCommitmentStore",
    "InMemoryBlobStore",
    "InMemoryCommitmentStore",
    "MemoryState",
    "memory_stores",
]


def memory_stores(state: MemoryState | None = None) -> Stores:
    """Every role over one in-memory state (a fresh one unless given)."""
    shared = state or MemoryState()
    return Stores(
        cohorts=MemoryCohortStore(shared),
        decisions=MemoryDecisionStore(shared),
        ledger=MemoryLedgerStore(shared),
        markets=MemoryMarketStore(shared),
        views=MemoryViewStore(shared),
        panel=MemoryPanelStore(shared),
        lineups=MemoryLineupStore(shared),
    )
