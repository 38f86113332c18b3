"""The job record and the workload that carries jobs plus trace metadata.

Times are integer seconds since the start of the trace (SWF is integer
seconds; integer time keeps every run exact and bit-reproducible).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from operator import attrgetter
from typing import NamedTuple

import numpy as np

#: Values of ``Workload.provenance["machine_size_source"]`` besides "header <key>".
MACHINE_FROM_ARGUMENT = "--procs"
MACHINE_FROM_WIDEST_JOB = "widest job (guessed)"
MACHINE_FROM_PEAK_USE = "peak CPUs in use (guessed)"
#: Machine-size sources that are guesses the user must be warned about.
GUESSED_MACHINE_SOURCES = (MACHINE_FROM_WIDEST_JOB, MACHINE_FROM_PEAK_USE)
#: Values of ``Workload.provenance["estimates_source"]``.
ESTIMATES_REQUESTED = "requested time"
ESTIMATES_PARTLY_RUNTIME = "requested time, else runtime"
ESTIMATES_RUNTIME = "runtime (no requested times in the trace)"
ESTIMATES_PERFECT = "runtime (perfect estimates)"


class Job(NamedTuple):
    """One batch job as submitted.

    ``estimate`` is the user's requested wall time (always >= 1 once a
    workload is loaded); ``runtime`` is what the job really needs (>= 0).  A
    job whose runtime exceeds its estimate is killed at the estimate unless
    the simulation runs with ``overrun="extend"``.

    A named tuple rather than a dataclass: immutable like a frozen one, but
    built in C, which makes reading a trace of 28,000 jobs four times faster
    to turn into jobs (bench/README.md).  Change a field with ``_replace``.
    """

    id: int
    submit: int
    runtime: int
    estimate: int
    width: int
    user: int = -1
    group: int = -1
    queue: int = -1
    deadline: int | None = None
    artificial_deadline: bool = False
    #: Seconds after its submission at which the job's user cancels it (SWF status 5
    #: replayed, docs/reference/events.md); None: never.
    cancel_after: int | None = None
    #: The job's Slurm account and QOS, numbered like ``user``, ``group`` and ``queue``
    #: (``Workload.names`` gives their names); -1: not known.
    account: int = -1
    qos: int = -1
    #: The nodes the job asked for (Slurm's NNodes); 0: not stated, its CPUs decide.
    nodes: int = 0
    #: The priority Slurm gave the job (sacct's Priority), kept beside the priority a
    #: policy computes; None: not known.
    priority: int | None = None

    @property
    def area(self) -> int:
        """Processor-seconds the job really uses (width x runtime)."""
        return self.width * self.runtime


def offered_load(submit: np.ndarray, width: np.ndarray, runtime: np.ndarray,
                 processors: int, cancel_after: np.ndarray | None = None) -> float | None:
    """sum(width x runtime) / (processors x (last submit - first submit)): the work jobs
    bring per unit of machine capacity while they arrive (docs/reference/models.md,
    "Offered load"); above 1 the queue grows without bound whatever the policy does.
    A job its user cancels (``cancel_after`` >= 0, :func:`cancel_column`) brings at most
    the time until its cancellation.  None when there is no submit span (no jobs, or all
    submitted at one instant)."""
    if len(submit) == 0 or int(submit.max() - submit.min()) == 0:
        return None
    if cancel_after is not None:
        runtime = np.where(cancel_after >= 0, np.minimum(runtime, cancel_after), runtime)
    area = float(np.dot(width.astype(np.float64), runtime.astype(np.float64)))
    return area / (processors * int(submit.max() - submit.min()))


def cancel_column(jobs: Sequence[Job]) -> np.ndarray | None:
    """Each job's ``cancel_after`` (-1 where its user never cancels it); None when no job
    is cancelled."""
    if all(job.cancel_after is None for job in jobs):
        return None
    return np.array([-1 if job.cancel_after is None else job.cancel_after for job in jobs],
                    dtype=np.int64)


@dataclass(frozen=True, repr=False)
class Workload:
    """Jobs ordered by (submit, id) plus what the trace says about itself.

    ``processors`` is the machine size the trace was recorded on (SWF header
    ``MaxProcs``, else ``MaxNodes``, else the widest job).  ``skipped`` counts
    the records that could not be simulated, by reason; readers always fill
    it so that the counts can be reported.  ``provenance`` says where the SWF
    reader took what the trace did not state plainly: ``machine_size_source``
    (e.g. ``"header MaxProcs"`` or ``"widest job (guessed)"``),
    ``estimates_source`` and ``estimates_from_runtime`` (jobs without a
    requested time, given their runtime as estimate); see docs/reference/workloads.md.
    ``names`` holds, for each numbered job field whose source named its values
    (``"user"``, ``"group"``, ``"queue"``, ``"account"``, ``"qos"``: a sacct file's
    User, Group, Partition, Account and QOS), the names in number order: number
    ``k`` is ``names[field][k - 1]``; a field the source did not name is absent
    (:func:`name_of` then gives the number as text, as an SWF queue is named).
    Its repr is one short line (name, jobs, processors, submit span): a trace
    of 28,000 jobs would otherwise print megabytes.
    """

    jobs: tuple[Job, ...]
    processors: int
    name: str = "workload"
    header: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, int] = field(default_factory=dict)
    unix_start_time: int | None = None
    provenance: Mapping[str, object] = field(default_factory=dict)
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs)

    def __getitem__(self, index: int) -> Job:
        return self.jobs[index]

    def __repr__(self) -> str:
        text = f"<Workload {self.name!r}: {len(self.jobs):,} jobs on {self.processors} processors"
        if self.jobs:
            days = (self.jobs[-1].submit - self.jobs[0].submit) / 86_400
            text += f", submits over {days:.1f} days"
        return text + ">"

    def offered_load(self, processors: int | None = None) -> float | None:
        """sum(width x runtime) / (processors x (last submit - first submit)).

        The work the jobs bring per unit of machine capacity while they
        arrive (docs/reference/models.md, "Offered load"); ``processors`` defaults to
        the workload's machine.  ``None`` when there is no submit span
        (no jobs, or all submitted at one instant).
        """
        columns = self.to_arrays()
        return offered_load(columns["submit"], columns["width"], columns["runtime"],
                            processors or self.processors, cancel_column(self.jobs))

    @classmethod
    def of_columns(cls, jobs: tuple[Job, ...], columns: Mapping[str, np.ndarray],
                   **metadata: object) -> Workload:
        """A workload of ``jobs`` made from ``columns`` (the int64 columns of
        :meth:`to_arrays`, in the jobs' order): a reader that builds its jobs from arrays
        hands them over, so that they are not rebuilt from the jobs (one ``fromiter`` per
        column over every job)."""
        workload = cls(jobs, **metadata)  # type: ignore[arg-type]
        workload.__dict__["_columns"] = {name: columns[name] for name in INT_COLUMNS}
        return workload

    def with_jobs(self, jobs: Sequence[Job], **changes) -> Workload:
        """A copy with other jobs (re-sorted by submit, id) and other metadata."""
        ordered = tuple(sorted(jobs, key=lambda j: (j.submit, j.id)))
        return replace(self, jobs=ordered, **changes)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Columnar int64 view: id, submit, runtime, estimate, width, user, group, queue.

        Fresh copies of columns made once per workload (:attr:`_columns`): a run
        reads them for its engine, its result and its offered load.
        """
        return {name: column.copy() for name, column in self._columns.items()}

    @cached_property
    def _columns(self) -> dict[str, np.ndarray]:
        """The columns of :meth:`to_arrays`: one ``fromiter`` per column over the jobs'
        fields, which numpy fills without building a row tuple per job."""
        n = len(self.jobs)
        return {name: np.fromiter(map(attrgetter(name), self.jobs), np.int64, n)
                for name in INT_COLUMNS}

    def __getstate__(self) -> dict[str, object]:
        """The fields, without the columns made from them (a pickle sent to a sweep's
        worker stays the size of the jobs)."""
        return {name: value for name, value in vars(self).items() if name != "_columns"}


def name_of(number: int, names: Sequence[str] | None) -> str | None:
    """The name of value ``number`` of a numbered job field (``queue``, ``qos``, ...):
    from ``names``, that field's entry of ``Workload.names``, where the source named
    its values, else (``names`` None) the number as text: an SWF trace's queue 2 is
    ``"2"``.  None for -1, not known, and for a number past the names."""
    if number < 0:
        return None
    if names is None:
        return str(number)
    return names[number - 1] if number <= len(names) else None


#: The int64 columns of :meth:`Workload.to_arrays`: the first fields of :class:`Job`.
INT_COLUMNS = ("id", "submit", "runtime", "estimate", "width", "user", "group", "queue")
