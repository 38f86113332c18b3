"""The view of the machine a policy gets, and the only way it can act.

Every action is validated at once: starting a job that does not fit, starting
a job twice, starting or rejecting a job that is not waiting, resuming a job
that is not suspended, waking up in the past.  A violation is a bug in the
policy and raises :class:`~schedlab.errors.PolicyError` naming the policy, the
job and the time.
"""

from __future__ import annotations

from bisect import insort
from heapq import heappush
from typing import TYPE_CHECKING, Any, Iterator

from schedlab.engine.profile import Profile
from schedlab.engine.result import REJECTED
from schedlab.errors import PolicyError

if TYPE_CHECKING:
    from schedlab.workload.job import Job

# Event kinds, in the order they are processed at one instant (docs/engine.md).
FINISH, SUBMIT, WAKE = 0, 1, 2


class Context:
    """State of the machine at ``now`` plus the actions a policy may take.

    Read-only views (policies must not mutate them):

    * ``waiting`` — waiting jobs by id, in arrival order.
    * ``running`` — running jobs by id.
    * ``suspended`` — suspended jobs by id (gang scheduling).
    * ``free`` — processors free right now; ``processors`` — machine size.
    """

    def __init__(self, processors: int, policy_name: str, overrun: str) -> None:
        self.processors = processors
        self.free = processors
        self.now = 0
        self.policy_name = policy_name
        self.overrun = overrun
        self.waiting: dict[int, Job] = {}
        self.running: dict[int, Job] = {}
        self.suspended: dict[int, Job] = {}
        self.stats: dict[str, Any] = {}
        # Engine-owned bookkeeping, indexed by the job's position in the workload.
        self._index: dict[int, int] = {}
        self._start: list[int] = []
        self._end: list[int] = []
        self._status: list[int] = []
        self._planned: list[int] = []
        self._suspended_for: list[int] = []
        self._remaining: dict[int, int] = {}
        self._suspended_at: dict[int, int] = {}
        self._expected_end: dict[int, int] = {}
        self._finish_at: dict[int, int] = {}
        self._by_end: list[tuple[int, int, int]] = []   # (expected end, job id, width), sorted
        self._events: list[tuple[int, int, int, int]] = []  # (time, kind, job id or -1, version)
        self._version: dict[int, int] = {}
        self._reject_reasons: dict[int, str] = {}
        self._done = 0                  # jobs finished or rejected so far

    # ------------------------------------------------------------------ views
    def expected_end(self, job: Job) -> int:
        """When a running job is expected to free its processors (by its estimate).

        A job already past its estimate (only under ``overrun="extend"``) is
        expected to end at ``now + 1``: nothing is known beyond "soon".
        """
        end = self._expected_end[job.id]
        return end if end > self.now else self.now + 1

    def releases(self) -> Iterator[tuple[int, int]]:
        """``(expected end, width)`` of every running job, earliest end first.

        A generator: EASY's shadow-time search usually stops after a few jobs.
        """
        now = self.now
        for end, _, width in self._by_end:
            yield (end if end > now else now + 1), width

    def profile(self) -> Profile:
        """A fresh availability profile from ``now``: running jobs until their expected ends."""
        return Profile.from_releases(self.processors, self.now, self.releases())

    def planned_start(self, job: Job) -> int:
        """The first start time promised to ``job`` by :meth:`plan`, or -1."""
        return self._planned[self._index[job.id]]

    # ---------------------------------------------------------------- actions
    def start(self, job: Job) -> None:
        """Start a waiting job now on ``job.width`` free processors."""
        if job.id not in self.waiting:
            self._fail(job, "start", "it is not waiting")
        if job.width > self.free:
            self._fail(job, "start", f"it needs {job.width} processors and only {self.free} are free")
        del self.waiting[job.id]
        self.free -= job.width
        i = self._index[job.id]
        now = self.now
        self._start[i] = now
        held = job.runtime if self.overrun == "extend" or job.runtime <= job.estimate else job.estimate
        self._run(job, now + held, now + job.estimate)

    def reject(self, job: Job, reason: str) -> None:
        """Refuse a waiting job (admission control); it never runs."""
        if job.id not in self.waiting:
            self._fail(job, "reject", "it is not waiting")
        del self.waiting[job.id]
        self._status[self._index[job.id]] = REJECTED
        self._reject_reasons[job.id] = reason
        self._done += 1

    def suspend(self, job: Job) -> None:
        """Stop a running job, keeping the work it has done (gang scheduling)."""
        if job.id not in self.running:
            self._fail(job, "suspend", "it is not running")
        end = self._stop_running(job)
        self._remaining[job.id] = end - self.now
        self._suspended_at[job.id] = self.now
        self.suspended[job.id] = job
        self._version[job.id] += 1     # the pending finish event becomes stale

    def resume(self, job: Job) -> None:
        """Run a suspended job again for the work it still has to do."""
        if job.id not in self.suspended:
            self._fail(job, "resume", "it is not suspended")
        if job.width > self.free:
            self._fail(job, "resume", f"it needs {job.width} processors and only {self.free} are free")
        del self.suspended[job.id]
        self.free -= job.width
        i = self._index[job.id]
        self._suspended_for[i] += self.now - self._suspended_at.pop(job.id)
        remaining = self._remaining.pop(job.id)
        expected_shift = self._suspended_for[i]
        self._run(job, self.now + remaining, self._start[i] + expected_shift + job.estimate)

    def wake_at(self, t: int) -> None:
        """Ask for a scheduling pass at time ``t`` (> now) even if nothing happens then."""
        if t <= self.now:
            raise PolicyError(f"policy {self.policy_name!r} asked to wake at {t}, "
                              f"which is not after now ({self.now})")
        heappush(self._events, (t, WAKE, -1, 0))

    def plan(self, job: Job, t: int) -> None:
        """Record the start time promised to a waiting job (kept if it is the first promise)."""
        i = self._index[job.id]
        if self._planned[i] < 0:
            self._planned[i] = t

    def note(self, name: str, value: Any) -> None:
        """Set a policy statistic reported with the result."""
        self.stats[name] = value

    def count(self, name: str, by: int = 1) -> None:
        """Add ``by`` to a counting policy statistic."""
        self.stats[name] = self.stats.get(name, 0) + by

    # --------------------------------------------------------------- internal
    def _run(self, job: Job, end: int, expected_end: int) -> None:
        self.running[job.id] = job
        self._expected_end[job.id] = expected_end
        self._finish_at[job.id] = end
        insort(self._by_end, (expected_end, job.id, job.width))
        version = self._version.get(job.id, 0)
        self._version[job.id] = version
        heappush(self._events, (end, FINISH, job.id, version))

    def _stop_running(self, job: Job) -> int:
        """Take a job off the processors; returns its scheduled end."""
        del self.running[job.id]
        self.free += job.width
        expected = self._expected_end.pop(job.id)
        self._by_end.remove((expected, job.id, job.width))
        return self._finish_at.pop(job.id)

    def _fail(self, job: Job, action: str, why: str) -> None:
        raise PolicyError(f"policy {self.policy_name!r} tried to {action} job {job.id} "
                          f"at time {self.now}, but {why}")
