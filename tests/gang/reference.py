"""A slow, obviously correct gang-scheduling simulator: one second at a time.

It walks the rounds and slots of docs/policies/gang.md literally — every
second of switch overhead and of service is a step — and never jumps, so it
checks the time arithmetic of :mod:`schedlab.engine.timesharing` (mid-slot
ends, overheads, express slots, whole-round jumps).  Decisions are the
policy's own, asked at the same moments: a round boundary after an arrival
or an end, an express slot at any slot boundary while express jobs wait.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedlab.engine.timesharing import Matrix


@dataclass
class Outcome:
    start: dict[int, int]
    end: dict[int, int]
    service: dict[int, int]


def reference_run(jobs, processors: int, policy, overrun: str = "kill") -> Outcome:
    jobs = sorted(jobs, key=lambda j: (j.submit, j.id))
    need = {j.id: (min(j.runtime, j.estimate) if overrun == "kill" else j.runtime) for j in jobs}
    remaining: dict[int, int] = {}
    service = {j.id: 0 for j in jobs}
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    matrix = Matrix(processors)
    waiting: dict[int, object] = {}
    express: dict[int, object] = {}
    state = {"t": jobs[0].submit if jobs else 0, "next": 0, "changed": False,
             "last_row": None, "express_id": -1}

    def deliver() -> None:
        while state["next"] < len(jobs) and jobs[state["next"]].submit <= state["t"]:
            job = jobs[state["next"]]
            state["next"] += 1
            if policy.is_express(job):
                express[job.id] = job
            else:
                waiting[job.id] = job
                state["changed"] = True

    def leave(job_id: int, in_matrix: bool) -> None:
        end[job_id] = state["t"]
        del remaining[job_id]
        if in_matrix:
            matrix._remove(job_id)
            state["changed"] = True

    def serve(row_id: int, members: list[int], length: int | None, in_matrix: bool) -> None:
        if row_id != state["last_row"]:
            for _ in range(policy.context_switch):
                state["t"] += 1
        for job_id in members:
            start.setdefault(job_id, state["t"])
        live = list(members)
        for job_id in [j for j in live if remaining[j] == 0]:
            leave(job_id, in_matrix)
            live.remove(job_id)
        elapsed = 0
        while live and (length is None or elapsed < length):
            state["t"] += 1
            elapsed += 1
            for job_id in list(live):
                remaining[job_id] -= 1
                service[job_id] += 1
                if remaining[job_id] == 0:
                    leave(job_id, in_matrix)
                    live.remove(job_id)
        state["last_row"] = row_id

    while True:
        deliver()
        if state["changed"]:
            matrix._clear_guests()
            matrix._drop_empty_rows()
            policy.arrange(matrix, list(waiting.values()), state["t"])
            for job_id in [j for j in waiting if j in matrix]:
                del waiting[job_id]
                remaining[job_id] = need[job_id]
            matrix._drop_empty_rows()
            state["changed"] = False
        rows = list(matrix.rows)
        if not rows and not express:
            if state["next"] >= len(jobs):
                assert not waiting, "jobs left waiting"
                break
            state["t"] = max(state["t"], jobs[state["next"]].submit)
            state["last_row"] = None
            continue
        for row in rows or [None]:
            deliver()
            if express:
                chosen = policy.pack_express(list(express.values()), processors)
                if chosen:
                    members = []
                    for job, _mask in chosen:
                        del express[job.id]
                        remaining[job.id] = need[job.id]
                        members.append(job.id)
                    serve(state["express_id"], members, None, in_matrix=False)
                    state["express_id"] -= 1
            if row is None:
                break
            members = [j for j in row.members() if j in remaining]
            if members:
                serve(row.id, members, policy.slot, in_matrix=True)
    return Outcome(start, end, service)
