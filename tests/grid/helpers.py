"""Small grid platforms and workloads for hand-checked schedules."""

from __future__ import annotations

import numpy as np

from schedlab.platform import Cluster, Licence, Machine, Platform
from schedlab.workload.grid import GridWorkload
from schedlab.workload.job import Job, Workload


def three_machines() -> Platform:
    """One cluster: fast (4 CPUs, rating 200), mid (4, 100), small (2, 100); licence A
    (1 copy, fast and mid), licence B (2 copies, every machine)."""
    machines = (Machine("fast", 4, 200), Machine("mid", 4, 100), Machine("small", 2, 100))
    licences = (Licence("A", 1, ("fast", "mid")), Licence("B", 2, ("fast", "mid", "small")))
    return Platform((Cluster("c", machines, licences),), name="three")


def two_clusters() -> Platform:
    """c1: two machines of 4 CPUs (ratings 100, 300) with licence A; c2: one of 8 CPUs (200)."""
    c1 = Cluster("c1", (Machine("a1", 4, 100), Machine("a2", 4, 300)),
                 (Licence("A", 1, ("a1", "a2")),))
    c2 = Cluster("c2", (Machine("b1", 8, 200),))
    return Platform((c1, c2), name="two")


def grid_workload(rows, name: str = "hand") -> GridWorkload:
    """Rows ``(submit, runtime, estimate, width, licences, rating[, deadline])``; ids 1, 2, ..."""
    jobs, needs, ratings = [], [], []
    names = sorted({lic for row in rows for lic in row[4]})
    for k, row in enumerate(rows, 1):
        submit, runtime, estimate, width, licences, rating = row[:6]
        deadline = row[6] if len(row) > 6 else None
        jobs.append(Job(k, submit, runtime, estimate, width, deadline=deadline))
        needs.append([name in licences for name in names])
        ratings.append(rating)
    n = len(rows)
    workload = Workload(tuple(jobs), max(8, *(job.width for job in jobs)), name)
    return GridWorkload(workload, tuple(names), np.array(needs, dtype=bool).reshape(n, len(names)),
                        ratings, np.zeros(n), np.zeros(n), np.zeros(n))


class ShortestFirstMigrating:
    """A preempting test policy (docs/reference/policies/grid.md, "Preemption"): queued jobs by
    shortest estimate left, each on the fastest machine that can take it; then every
    running job on a slower machine than an idle one it could use moves there."""

    name = "sjf-migrate"

    def on_submit(self, ctx, task) -> None:
        pass

    def on_finish(self, ctx, task) -> None:
        pass

    def schedule(self, ctx) -> None:
        for task in sorted(ctx.waiting.values(), key=lambda t: (t.estimate_left, t.id)):
            machine = ctx.fastest_fit(task)
            if machine is not None:
                ctx.start(task, machine)
        platform = ctx.platform
        for task in sorted(ctx.running.values(), key=lambda t: t.id):
            here = task.machine
            faster = [k for k in ctx.candidates(task).tolist()
                      if ctx.jobs_on[k] == 0 and platform.rating[k] > platform.rating[here]
                      and all(platform.feature[l, k] or ctx.free_copies[l] >= 1
                              or not platform.feature[l, here] for l in task.licences)]
            if faster:
                ctx.preempt(task)
                ctx.start(task, faster[0])
