"""A slow, obviously correct gang-scheduling simulator: one second at a time.

It walks the rounds and slots of docs/reference/policies/gang.md literally — every
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
        """A job ends now; a matrix job frees its place (the next round re-arranges)."""
        end[job_id] = state["t"]
        del remaining[job_id]
        if in_matrix:
            matrix._remove(job_id)
            state["changed"] = True

    def take(chosen, at: int) -> dict[int, int]:
        """Express jobs out of the queue onto their processors."""
        taken = {}
        for job, mask in chosen:
            del express[job.id]
            remaining[job.id] = need[job.id]
            taken[job.id] = mask
        return taken

    def done_at_once(live: list[int], running: dict[int, int]) -> None:
        """Jobs that need no service end the moment they start."""
        for job_id in [j for j in live if remaining[j] == 0]:
            live.remove(job_id)
            leave(job_id, in_matrix=True)
        for job_id in [j for j in running if remaining[j] == 0]:
            del running[job_id]
            leave(job_id, in_matrix=False)

    def serve(row_id: int, members: list[int], length: int, shorts: dict[int, int]) -> None:
        """One slot, second by second: ``length`` seconds for the matrix jobs (fewer if
        they all end), and on until the express jobs in it have ended; from its
        length on (from its start when express jobs start on arrival), waiting
        express jobs join it on processors nobody in it holds."""
        if row_id != state["last_row"]:
            for _ in range(policy.context_switch):
                state["t"] += 1
        held = 0
        for job_id in members:
            held |= matrix.mask_of(job_id)
            start.setdefault(job_id, state["t"])
        for job_id in shorts:
            start.setdefault(job_id, state["t"])
        live = list(members)
        running = dict(shorts)
        done_at_once(live, running)
        elapsed = 0
        on_arrival = policy.express_start == "arrival"
        while True:
            if elapsed >= length and not running:
                break
            if elapsed >= length or on_arrival:
                deliver()
                while True:            # again while a job needing no service joined
                    free = matrix.full & ~held
                    for mask in running.values():
                        free &= ~mask
                    taken = take(policy.pack_express(list(express.values()), free),
                                 state["t"])
                    for job_id, mask in taken.items():
                        running[job_id] = mask
                        start[job_id] = state["t"]
                    done_at_once(live, running)
                    if not any(need[j] == 0 for j in taken):
                        break
            if not running and (elapsed >= length or not live):
                break
            state["t"] += 1
            elapsed += 1
            for job_id in live + list(running):
                remaining[job_id] -= 1
                service[job_id] += 1
                if remaining[job_id] == 0:
                    if job_id in running:
                        del running[job_id]
                        leave(job_id, in_matrix=False)
                    else:
                        live.remove(job_id)
                        leave(job_id, in_matrix=True)
        state["last_row"] = row_id

    def express_slot(rows, first: int) -> None:
        """An express slot: the waiting express jobs on the whole machine, matrix jobs
        on the processors they leave."""
        shorts = take(policy.pack_express(list(express.values()), matrix.full), state["t"])
        used = 0
        for mask in shorts.values():
            used |= mask
        guests = policy.express_guests(matrix, matrix.full & ~used, first) if rows else []
        serve(state["express_id"], guests, 0, shorts)
        state["express_id"] -= 1

    def free_in(row) -> int:
        return matrix.full & ~(row.occupied | row.guest_mask)

    while True:
        deliver()
        if state["changed"]:
            matrix._clear_guests()
            matrix._drop_empty_rows()
            matrix.served = {j: need[j] - remaining[j] for j in matrix._mask}
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
        deliver()
        if not rows:
            express_slot(rows, 0)
            continue
        express_open = True
        for index, row in enumerate(rows):
            deliver()
            members = [j for j in row.members() if j in remaining]
            if not members:
                continue
            chosen = policy.pack_express(list(express.values()), free_in(row))
            if len(chosen) < len(express) and express_open:
                express_open = False
                express_slot(rows, index)
                deliver()
                members = [j for j in row.members() if j in remaining]
                if not members:
                    continue
                chosen = policy.pack_express(list(express.values()), free_in(row))
            serve(row.id, members, policy.slot, take(chosen, state["t"]))
    return Outcome(start, end, service)
