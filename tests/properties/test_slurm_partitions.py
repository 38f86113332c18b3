"""The slurm policy's partitions and QOS on random workloads: every rule of a run holds, every
job runs on CPUs of its own partition's nodes, and every CPU comes back."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schedlab.api import run
from schedlab.conformance import check_invariants
from schedlab.policies.slurm import SlurmScheduling
from schedlab.policies.slurm_partitions import Nodes
from schedlab.workload.job import Job, Workload
from schedlab.workload.slurmconf import Partition
from schedlab.workload.slurmqos import Qos

#: Four nodes of 4 CPUs: a on n1-n2, b on n2-n4 (sharing n2) with a higher tier, all.
PARTITIONS = (Partition("a", nodes=(0, 1), default=True), Partition("b", nodes=(1, 2, 3),
                                                                    priority_tier=2),
              Partition("all"))
TABLE = (Qos("normal", max_jobs_per_user=2), Qos("wide", priority=5, grp_cpus=10))


class Watched(Nodes):
    """Nodes that record, for every job started, its partition and the CPUs it got."""

    def __init__(self) -> None:
        super().__init__(PARTITIONS, 4, 4)
        self.given: dict[int, tuple[int, list[tuple[int, int]]]] = {}

    def take(self, job_id: int, part: int, width: int,
             blocked: frozenset[int] | set[int] = frozenset()) -> None:
        super().take(job_id, part, width, blocked)
        self.given[job_id] = (part, list(self.held[job_id]))


jobs = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 200), st.integers(1, 5),
                          st.integers(1, 12), st.integers(1, 3), st.integers(1, 3),
                          st.sampled_from([-1, 1, 2])), min_size=1, max_size=25)


@given(rows=jobs, backfill=st.booleans())
def test_jobs_run_on_their_partitions_nodes_and_give_every_cpu_back(
        rows: list[tuple[int, ...]], backfill: bool) -> None:
    workload = Workload(jobs=(), processors=16).with_jobs(
        [Job(id=k, submit=s, runtime=r, estimate=m * 60, width=w, user=u, queue=q, qos=o)
         for k, (s, r, m, w, u, q, o) in enumerate(rows, start=1)])
    widths = {job.id: job.width for job in workload}
    policy = SlurmScheduling(backfill=backfill, bf_interval=1, cpus_per_node=4,
                             partitions=PARTITIONS, queue_names=("a", "b", "all"), qos=TABLE,
                             qos_names=("normal", "wide"), priority="multifactor",
                             weight_qos=100)
    nodes = policy._nodes = Watched()      # (the nodes the policy would build, watched)
    result = run(workload, policy)
    check_invariants(result, workload)
    started = {int(i) for i, s in zip(result.job_id, result.start) if s >= 0}
    assert set(nodes.given) == started
    for job_id, (part, pieces) in nodes.given.items():
        members = PARTITIONS[part].nodes or (0, 1, 2, 3)
        assert all(node in members and cpus > 0 for node, cpus in pieces)
        assert sum(cpus for _, cpus in pieces) == widths[job_id]
    assert nodes.node_free == [4, 4, 4, 4] and nodes.part_free == [8, 12, 16]
    assert nodes.held == {}
