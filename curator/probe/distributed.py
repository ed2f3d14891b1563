"""Data-parallel probe runs on an existing launcher: torchrun, `accelerate launch`, multi-node.

A launcher starts one `curator probe` process per device and tells each its place through the
environment (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`; torchrun and
accelerate set the same variables, on one machine or many). Every rank reads the same input,
splits the run's (language, relation) work items the same way (`share`) and scores its own
share on its own device (`cuda:LOCAL_RANK`). The run folder is written safely by construction:

- each relation's files are written by the one rank that owns the item (atomic, as always);
- rank 0 holds the folder's write lock for the whole run, so a second run is refused as it is
  for a single process, and no rank writes anything before rank 0 has the lock;
- run.json is written once, by rank 0, from every rank's results gathered at the end.

The split depends only on the items and the number of ranks, never on what is already done,
so all ranks agree on it without talking; relations already stored are skipped by whoever owns
them, so a run resumes whatever the number of ranks it was started with. Ranks talk over gloo
(CPU collectives: a handful of small messages, no GPU memory, works beside NCCL-less setups);
the group's timeout is long because ranks finish their shares at different times and the
final gather waits for the slowest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar, cast

T = TypeVar("T")
GROUP_TIMEOUT = timedelta(days=7)


@dataclass(frozen=True)
class Ranks:
    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @classmethod
    def from_env(cls) -> Ranks:
        """This process's place as the launcher set it; one process alone when none did. A
        launcher sets the rendezvous address too: WORLD_SIZE alone (exported for some other
        tool) does not make a plain `curator probe` wait for peers that never come."""

        def number(name: str, default: int) -> int:
            try:
                return int(os.environ.get(name, default))
            except ValueError:
                return default

        world = number("WORLD_SIZE", 1)
        if world <= 1 or not os.environ.get("MASTER_ADDR"):
            return cls()
        return cls(number("RANK", 0), world, number("LOCAL_RANK", 0))

    @property
    def distributed(self) -> bool:
        return self.world > 1

    @property
    def leader(self) -> bool:
        return self.rank == 0

    def device(self, asked: str) -> str:
        """The device of this rank: `cuda:LOCAL_RANK` when running on GPUs, else as asked."""
        import torch

        if not self.distributed or asked == "cpu" or not torch.cuda.is_available():
            return asked
        return f"cuda:{self.local_rank % torch.cuda.device_count()}"

    def share(self, items: Sequence[T], cost: Sequence[float]) -> list[T]:
        """This rank's items: longest first to the least loaded rank (ties to the lower rank), the
        same answer on every rank; returned in the input's order."""
        load = [0.0] * self.world
        owner = [0] * len(items)
        for i in sorted(range(len(items)), key=lambda i: (-cost[i], i)):
            r = min(range(self.world), key=lambda r: (load[r], r))
            owner[i] = r
            load[r] += cost[i]
        return [item for item, r in zip(items, owner) if r == self.rank]


@contextmanager
def process_group(ranks: Ranks) -> Iterator[None]:
    """The gloo group for the run's few collectives, torn down after (a no-op for one process)."""
    if not ranks.distributed:
        yield
        return
    import torch.distributed as dist

    owned = not dist.is_initialized()
    if owned:
        dist.init_process_group("gloo", rank=ranks.rank, world_size=ranks.world, timeout=GROUP_TIMEOUT)
    try:
        yield
        if owned:
            # every rank past its last collective before any tears the group down: a rank that
            # destroys its gloo context while a peer's last exchange is still in flight can make
            # the peer abort ("terminate called without an active exception", SIGABRT)
            dist.barrier()
    finally:
        if owned and dist.is_initialized():
            dist.destroy_process_group()


def broadcast(value: T, ranks: Ranks) -> T:
    """Rank 0's value on every rank."""
    if not ranks.distributed:
        return value
    import torch.distributed as dist

    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def gather(value: T, ranks: Ranks) -> list[T]:
    """Every rank's value, in rank order, on every rank."""
    if not ranks.distributed:
        return [value]
    import torch.distributed as dist

    out: list[T | None] = [None] * ranks.world
    dist.all_gather_object(out, value)
    return cast("list[T]", out)  # every slot filled by its rank
