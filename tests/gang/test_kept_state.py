"""The gang policy's passes that keep state across passes agree with the plain passes.

``GangScheduler`` keeps the guests (``packing.KeptGuests``) and the long jobs' processors
from one pass to the next, re-packs only after a job left and looks only at the waiting
jobs that may fit; the plain pass recomputes the guests and the long jobs' processors from
the matrix, re-packs at every pass and walks the whole queue.  Both are compared at
every pass and over whole runs, on random workloads with and without failures, windows
and cancellations (which change the processors in service and take jobs out).
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from events.test_gang_outages import workloads_with_events
from schedlab.engine import timesharing
from schedlab.engine.timesharing import GUEST, LEAVE, UNGUEST, Matrix, run_timesharing
from schedlab.policies.gang import GangScheduler, packing
from schedlab.workload.job import Job, Workload
from strategies import gang_policies, workloads

PARAMS = gang_policies(most_slots=5)


class PlainGuests:
    """Every pass's guests chosen from scratch (:func:`packing.add_guests`)."""

    add = staticmethod(packing.add_guests)


class CheckedGuests(packing.KeptGuests):
    """The kept guests, checked against the plain pass's at every pass."""

    passes = 0

    def add(self, matrix: Matrix) -> int:
        placed = super().add(matrix)
        kept = [dict(row.guests) for row in matrix.rows]
        matrix._clear_guests()
        assert packing.add_guests(matrix) == placed
        assert [row.guests for row in matrix.rows] == kept
        CheckedGuests.passes += 1
        return placed


class PlainGang(GangScheduler):
    """The gang policy with every pass computed from the matrix and the whole queue."""

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self._guests = PlainGuests()

    def _may_fit(self, waiting: list[Job], room: int, long_room: int, first: int = 0
                 ) -> list[tuple[int, Job]]:
        return list(enumerate(waiting))

    def _repack(self, matrix: Matrix) -> None:
        self._moves += packing.repack(matrix)
        matrix._drop_empty_rows()

    def _long_processors(self, matrix: Matrix) -> int:
        mask = 0
        for job_id, job_mask in matrix.masks.items():
            if self._is_long(matrix.job(job_id)):
                mask |= job_mask
        return mask


class CheckedGang(GangScheduler):
    """The gang policy, its long jobs' processors and skipped re-packings checked against
    the plain pass's, and the widest spots a pass leaves (what the next one reads to pass
    over the jobs it left) against the matrix and the jobs left."""

    skipped = 0

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self._guests = CheckedGuests()

    def _repack(self, matrix: Matrix) -> None:
        if len(matrix.journal) == self._journal_seen:
            assert packing.repack(matrix) == 0      # skipped: re-packing moves nothing
            CheckedGang.skipped += 1
        super()._repack(matrix)

    def _long_processors(self, matrix: Matrix) -> int:
        kept = super()._long_processors(matrix)
        assert kept == PlainGang._long_processors(self, matrix)
        return kept

    def _serve_queue(self, matrix: Matrix, waiting: list[Job], long_mask: int, now: int
                     ) -> tuple[int, int, int, int]:
        left, _, room, long_room = state = super()._serve_queue(matrix, waiting,
                                                                  long_mask, now)
        if left:
            assert (room, long_room) == packing.largest_spots(matrix, self.slots,
                                                              self._long_mask)
            if self.backfill == "first-fit":
                for job in waiting:
                    if job.id not in matrix:
                        assert job.width > (long_room if self._is_long(job) else room)
        return state


def _same_runs(workload, params, **events) -> None:
    classes = {"short": 6, "long": 15}       # inside the drawn lengths: every class occurs
    kept = run_timesharing(workload, CheckedGang(**classes, **params), **events)
    plain = run_timesharing(workload, PlainGang(**classes, **params), **events)
    assert kept.start.tolist() == plain.start.tolist()
    assert kept.end.tolist() == plain.end.tolist()
    assert kept.stats == plain.stats
    for column in ("change_time", "change_kind", "change_job", "change_row"):
        assert getattr(kept.timesharing, column).tolist() == \
            getattr(plain.timesharing, column).tolist()


@st.composite
def crowded(draw) -> Workload:
    """15 to 40 jobs arriving close together, half of them narrow, many of them long:
    several rows, guests and long jobs in the matrix, a queue behind it."""
    processors = draw(st.integers(2, 12))
    raw = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 60), st.integers(1, 80),
                                  st.integers(1, processors), st.booleans()),
                        min_size=15, max_size=40))
    jobs, submit = [], 0
    for i, (gap, runtime, estimate, width, narrow) in enumerate(raw):
        submit += gap
        jobs.append(Job(i + 1, submit, runtime, estimate, min(1 + width % 3, width) if narrow else width))
    return Workload(tuple(jobs), processors, name="crowded")


@settings(max_examples=150, deadline=None)
@given(crowded(), PARAMS)
def test_kept_passes_match_the_plain_passes(workload, params):
    _same_runs(workload, params)


@settings(max_examples=50, deadline=None)
@given(st.data(), PARAMS)
def test_kept_passes_match_the_plain_passes_on_varied_workloads(data, params):
    workload = data.draw(workloads(max_jobs=25, processors=data.draw(st.integers(1, 12))))
    _same_runs(workload, params)


@settings(max_examples=60, deadline=None)
@given(st.data(), PARAMS)
def test_kept_passes_match_the_plain_passes_under_failures_and_windows(data, params):
    workload, spec, windows = data.draw(workloads_with_events(15, 8))
    _same_runs(workload, params, failures=spec, windows=windows)


def _guests_replayed(log: list[tuple[int, int, int, int]], start: int, stop: int,
                    places: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The guest places ``(job id, row id)`` after the log's entries ``start:stop``: a guest
    place won or lost as logged, every place of a job that left gone with it."""
    for _, kind, job_id, row_id in log[start:stop]:
        if kind == GUEST:
            places.add((job_id, row_id))
        elif kind == UNGUEST:
            places.discard((job_id, row_id))
        elif kind == LEAVE:
            places = {place for place in places if place[0] != job_id}
    return places


def _guests_logged_as_kept(workload: Workload, params: dict, **events) -> int:
    """Run with the guests kept in the matrix across passes and check, after every pass,
    that replaying the matrix log gives the guests the rows hold; returns the passes."""
    after_passes: list[tuple[int, set[tuple[int, int]]]] = []
    arrange = timesharing._Simulation.arrange

    def checked(simulation) -> None:
        arrange(simulation)
        after_passes.append((len(simulation.matrix.log),
                             {(job_id, row.id) for row in simulation.matrix.rows
                              for job_id in row.guests}))

    with mock.patch.object(timesharing._Simulation, "arrange", checked):
        result = run_timesharing(workload, GangScheduler(short=6, long=15, **params),
                                 **events)
    log = list(zip(result.timesharing.change_time.tolist(),
                   result.timesharing.change_kind.tolist(),
                   result.timesharing.change_job.tolist(),
                   result.timesharing.change_row.tolist()))
    places: set[tuple[int, int]] = set()
    done = 0
    for length, held in after_passes:
        places = _guests_replayed(log, done, length, places)
        assert places == held
        done = length
    return len(after_passes)


@settings(max_examples=100, deadline=None)
@given(crowded(), PARAMS)
def test_the_log_names_every_change_of_the_kept_guests(workload, params):
    _guests_logged_as_kept(workload, params)


@settings(max_examples=40, deadline=None)
@given(st.data(), PARAMS)
def test_the_log_names_every_change_of_the_kept_guests_under_failures_and_windows(data,
                                                                                 params):
    workload, spec, windows = data.draw(workloads_with_events(15, 8))
    _guests_logged_as_kept(workload, params, failures=spec, windows=windows)


def test_the_guests_are_compared_at_every_pass():
    """The checks run: a crowded run makes many passes that keep guests or skip
    re-packing."""
    jobs = tuple(Job(i + 1, i, 30 + 7 * (i % 5), 40, 1 + i % 3) for i in range(40))
    before, skipped = CheckedGuests.passes, CheckedGang.skipped
    _same_runs(Workload(jobs, 6, name="crowded"), {"strategy": 2, "slots": 4})
    assert CheckedGuests.passes - before > 20
    assert CheckedGang.skipped - skipped > 5


def test_kept_guests_are_chosen_again_when_processors_leave_service():
    matrix = Matrix(4)
    matrix.place(Job(1, 0, 9, 9, 2), 0, 0b0011)
    matrix.place(Job(2, 0, 9, 9, 1), 1, 0b0100)
    guests = packing.KeptGuests()
    guests.add(matrix)
    assert matrix.row(0).guests == {2: 0b0100} and matrix.row(1).guests == {1: 0b0011}
    matrix._clear_guests()
    matrix.usable = 0b1011                  # processor 2 fails: job 2 is no guest anywhere
    matrix._remove(2)
    matrix.place(Job(3, 0, 9, 9, 1), 1, 0b1000)
    guests.add(matrix)
    assert matrix.row(0).guests == {3: 0b1000} and matrix.row(1).guests == {1: 0b0011}
    matrix._clear_guests()
    matrix.usable = 0b0111                  # processor 3 leaves service, its job stays
    guests.add(matrix)
    assert matrix.row(0).guests == {} and matrix.row(1).guests == {1: 0b0011}


def test_a_guest_yields_its_processors_to_a_job_of_the_row():
    matrix = Matrix(4)
    matrix.place(Job(1, 0, 9, 9, 2), 0, 0b0011)
    matrix.place(Job(2, 0, 9, 9, 1), 1, 0b0100)
    matrix.set_guests([2], 0)
    matrix.set_guests([1], 1)
    matrix._guest_changes()                 # a pass ends: the guests above are its own
    matrix.place(Job(3, 0, 9, 9, 2), 0, 0b1100)     # onto job 2's processor in row 0
    assert matrix.row(0).guests == {} and matrix.row(0).guest_mask == 0
    assert matrix.row(1).guests == {1: 0b0011}
    matrix.set_guests([1], 1)               # the same guests: nothing changes
    assert matrix._guest_changes() == ([(2, 0)], [])
    moved = Matrix(2)
    moved.place(Job(1, 0, 9, 9, 1), 0, 0b01)
    moved.place(Job(2, 0, 9, 9, 1), 1, 0b10)
    moved.place(Job(3, 0, 9, 9, 1), 1, 0b01)
    moved.set_guests([2], 0)
    moved._guest_changes()
    moved.move(2, 0)                        # job 2 joins the row it was a guest in
    assert moved.row(0).own == {1: 0b01, 2: 0b10} and moved.row(0).guests == {}
    assert moved._guest_changes() == ([(2, 0)], [])
