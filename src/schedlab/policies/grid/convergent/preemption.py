"""The preemptive versions of Convergent Scheduling, CS_i_p and CS_ni_p (Pasquali thesis §4.2).

Running jobs are rows of the Job-Machine matrix like queued ones (§3.2.2:
"the scheduler assigns priorities to all the jobs in the cluster (i.e.
queued and running)"), so every pass's plan says where each of them should
be.  Without preemption the plan is followed for queued jobs only and a
large Overhead minimization weight (``Delta = 800``) keeps running jobs
where they are.  With preemption (``Delta = 8``, the thesis' footnote 2) the
plan is followed for running jobs too: a running job the plan puts on
another machine migrates there, and one the plan leaves out (set aside by
the knapsack, or unmatched in favour of a better job) is preempted and
queued again with its progress (the grid engine's ``GridContext.preempt``,
eq. 3.9 on what is left).  ``Delta`` is then the price of a move: a plan
moves a running job only when that gains more than ``Delta`` in the plan's
weight (Overhead minimization, "preserving the scheduling made in the
previous step").

Our reading of the order (docs/reference/policies/convergent.md, "Preemption"):
first every running job the plan moves or leaves out is preempted, then the
plan's queued jobs, the preempted ones among them, start by decreasing entry
as in the non-preemptive versions.  No thrashing within an instant: a job
is preempted only when its planned machine differs from its current one,
so it is never restarted where it was (the engine also refuses that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schedlab.engine.grid import GridContext, GridTask
    from schedlab.policies.grid.convergent.matching import Matching


def preempt_off_plan(ctx: GridContext, tasks: list[GridTask], plan: Matching) -> int:
    """Preempt every running job of ``tasks`` (the matrix rows) that ``plan`` does not keep
    on its current machine; returns how many were preempted, in row order."""
    planned = dict(zip(plan.rows.tolist(), ctx.machines[plan.columns].tolist()))
    moved = [task for row, task in enumerate(tasks)
             if task.machine >= 0 and planned.get(row) != task.machine]
    for task in moved:
        ctx.preempt(task)
    return len(moved)


__all__ = ["preempt_off_plan"]
