"""What takes processors away from the jobs: node failures, maintenance windows and drains.

The inputs of docs/reference/events.md, read and checked here; the engine
(:mod:`schedlab.engine.outages`) makes them happen.

* A **failure** stops particular nodes at a time, for a repair time: drawn
  per node from an MTBF (:class:`FailureModel`, exponential or Weibull times
  between failures, exponential or fixed repair times, seeded) or replayed
  from a failure file (:func:`read_failures`: ``time,nodes,duration``).  A
  job on a failed node meets its fate (:data:`FATES`).
* A **window** (maintenance or drain, :class:`Window`, :func:`read_windows`)
  takes a number of processors, or all, from its start to its end, known
  from its notice time.  It never stops a job: it takes the processors free
  at its start and then each one a job frees, until it holds its count.  A
  maintenance window is announced ahead (planning policies keep jobs out of
  it from the notice on); a drain is announced at its start.

A node is ``node_size`` consecutive processors: node ``k`` is processors
``k * node_size`` to ``(k + 1) * node_size - 1``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from schedlab.errors import InputError, did_you_mean
from schedlab.limits import MAX_TIME
from schedlab.textio import csv_rows, parse_int, read_text

#: What becomes of a job whose node fails: ended there (``kill``), queued again from the
#: start (``requeue``), or queued again from its last checkpoint (``checkpoint``).
FATES = ("kill", "requeue", "checkpoint")
#: Where a requeued job goes in the queue: its place by arrival, or the back.
REQUEUE_ORDERS = ("arrival", "back")
#: Which free processors a starting job takes (our readings; docs/reference/events.md).
ALLOCATIONS = ("first-fit", "contiguous", "any")
#: Distributions of the time between a node's failures and of its repair times.
FAILURE_DISTRIBUTIONS = ("exponential", "weibull")
REPAIR_DISTRIBUTIONS = ("exponential", "fixed")
#: How a checkpoint interval is chosen when not given in seconds (Young 1974; Daly 2006).
INTERVAL_RULES = ("young", "daly")
WINDOW_KINDS = ("maintenance", "drain")

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)([smhdw]?)")
#: The longest time a failure spec takes (about 31,700 years): SWF times stay below 2**53.
MAX_SECONDS = 10**12


def parse_seconds(text: str, *, field: str, low: float = 0.0, file: str | None = None,
                  line: int | None = None) -> float:
    """A duration written as a number of seconds or with a unit (``90``, ``2.5h``, ``7d``,
    ``1w``); an InputError naming ``field`` unless it is finite, > ``low`` and at most
    :data:`MAX_SECONDS`."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise InputError(f"expected a duration such as 3600, 90m, 4h, 7d or 1w, got {text!r}",
                         file=file, line=line, field=field)
    value = float(match.group(1)) * _UNITS[match.group(2) or "s"]
    if not low < value <= MAX_SECONDS:
        raise InputError(f"expected a duration > {low:g} s and at most {MAX_SECONDS:g} s, "
                         f"got {text!r}", file=file, line=line, field=field)
    return value


@dataclass(frozen=True)
class Checkpointing:
    """How a job is checkpointed under the ``checkpoint`` fate.

    Every ``interval`` seconds of work a job writes a checkpoint taking
    ``cost`` seconds; a restart first spends ``restart`` seconds reading the
    last one.  ``interval`` None picks it per job from its width and the
    node MTBF (:meth:`interval_for`) by ``rule``.
    """

    cost: int = 60
    restart: int = 60
    interval: int | None = None
    rule: str = "young"

    def interval_for(self, width_nodes: int, mtbf: float | None) -> int:
        """The interval of a job on ``width_nodes`` nodes: the given one, else Young's
        sqrt(2 C M) or Daly's sqrt(2 C M) - C, M being the job's MTBF (the node MTBF over
        its nodes); one day without an MTBF (failures from a file)."""
        if self.interval is not None:
            return self.interval
        if mtbf is None:
            return 86400
        job_mtbf = mtbf / max(1, width_nodes)
        young = math.sqrt(2.0 * self.cost * job_mtbf)
        chosen = young - self.cost if self.rule == "daly" else young
        return max(1, round(chosen))


@dataclass(frozen=True)
class FailureModel:
    """Failures drawn per node (docs/reference/events.md, "Failures").

    A node's time to its next failure, counted from its last repair (or the
    trace start), is exponential with mean ``mtbf`` or Weibull with that
    mean and ``shape``; its repair takes ``repair`` seconds, exponential
    with that mean or ``fixed``.  Each node draws from its own generator,
    seeded by ``(seed, node)``, so one node's failures do not depend on the
    others'.
    """

    mtbf: float
    repair: float = 3600.0
    distribution: str = "exponential"
    shape: float = 0.7
    repair_distribution: str = "exponential"
    seed: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mtbf) and self.mtbf > 0):
            raise InputError(f"expected an MTBF > 0, got {self.mtbf!r}", field="mtbf")
        if not (math.isfinite(self.repair) and self.repair > 0):
            raise InputError(f"expected a repair time > 0, got {self.repair!r}", field="repair")
        if not (math.isfinite(self.shape) and 0.1 <= self.shape <= 10):
            raise InputError(f"expected a Weibull shape in [0.1, 10], got {self.shape!r}",
                             field="shape")

    def generator(self, node: int) -> np.random.Generator:
        """The node's own random generator."""
        return np.random.default_rng([self.seed, node])

    def time_to_failure(self, rng: np.random.Generator) -> int:
        """Seconds from a repair to the next failure (at least 1)."""
        return self._to_failure(float(rng.standard_exponential()))

    def repair_time(self, rng: np.random.Generator) -> int:
        """Seconds a failed node takes to come back (at least 1)."""
        if self.repair_distribution == "fixed":
            return self._repair(0.0)
        return self._repair(float(rng.standard_exponential()))

    def next_failure(self, rng: np.random.Generator, after: int) -> tuple[int, int]:
        """The node's next failure after its repair at ``after``: ``(start, end)``."""
        start = after + self.time_to_failure(rng)
        return start, start + self.repair_time(rng)

    def draws(self, rng: np.random.Generator, count: int) -> list[tuple[int, int]]:
        """The node's next ``count`` ``(time to failure, repair time)`` pairs: the values of
        as many :meth:`time_to_failure` and :meth:`repair_time` calls in turn, drawn in one
        call of the generator (each is a function of one standard exponential draw, none
        for a fixed repair)."""
        if self.repair_distribution == "fixed":
            return [(self._to_failure(e), self._repair(0.0))
                    for e in rng.standard_exponential(count).tolist()]
        drawn = rng.standard_exponential(2 * count).tolist()
        return [(self._to_failure(a), self._repair(b)) for a, b in zip(drawn[::2], drawn[1::2])]

    def _to_failure(self, e: float) -> int:
        """The time to failure of the standard exponential draw ``e``: exponential with mean
        ``mtbf`` (numpy's ``exponential``, ``mtbf * e``) or Weibull of that mean (numpy's
        ``weibull``, ``e ** (1 / shape)``, scaled)."""
        if self.distribution == "weibull":
            scale = self.mtbf / math.gamma(1.0 + 1.0 / self.shape)
            return max(1, round(scale * math.pow(e, 1.0 / self.shape)))
        return max(1, round(self.mtbf * e))

    def _repair(self, e: float) -> int:
        """The repair time of the standard exponential draw ``e`` (unused when fixed)."""
        return max(1, round(self.repair if self.repair_distribution == "fixed"
                            else self.repair * e))


@dataclass(frozen=True)
class Failure:
    """Nodes ``nodes`` fail at ``time`` and are back ``duration`` seconds later (a failure
    file's line ``line``, 0 for a drawn one)."""

    time: int
    nodes: tuple[int, ...]
    duration: int
    line: int = 0

    @property
    def end(self) -> int:
        return self.time + self.duration


@dataclass(frozen=True)
class Window:
    """A maintenance window or a drain from ``start`` to ``end``, known from ``notice``
    (<= start), on ``processors`` processors (None: all of them), or, when ``node_ids``
    names nodes, on the processors of those nodes (a window file's line ``line`` of
    ``source``)."""

    notice: int
    start: int
    end: int
    processors: int | None
    kind: str = "maintenance"
    line: int = 0
    node_ids: tuple[int, ...] = ()
    source: str = field(default="", compare=False)

    def width(self, machine: int, node_size: int = 1) -> int:
        """The processors it takes on a machine of ``machine`` processors in nodes of
        ``node_size``."""
        if self.node_ids:
            return sum(hi - lo for lo, hi in node_processors(self.node_ids, node_size, machine))
        return machine if self.processors is None else min(self.processors, machine)


def node_processors(nodes: Sequence[int], node_size: int, machine: int) -> list[tuple[int, int]]:
    """The processors of ``nodes`` (nodes of ``node_size`` processors, the last one cut at
    the machine's ``machine``; none of a node beyond it) as ranges ``[lo, hi)``."""
    return [(node * node_size, min((node + 1) * node_size, machine)) for node in nodes
            if node * node_size < machine]


@dataclass(frozen=True)
class FailureSpec:
    """What fails and what becomes of the jobs hit (``--failures``; docs/reference/events.md).

    Either ``model`` (drawn) or ``replayed`` (from a file) gives the
    failures.  ``fate`` is one of :data:`FATES`; ``requeue_order`` one of
    :data:`REQUEUE_ORDERS`; ``checkpointing`` applies under the
    ``checkpoint`` fate; ``allocation`` is how jobs take processors
    (:data:`ALLOCATIONS`); ``node_size`` processors make a node.  A job
    queued again ``max_requeues`` times is killed at its next failure (a
    job longer than the machine's MTBF would otherwise be queued again
    forever).
    """

    model: FailureModel | None = None
    replayed: tuple[Failure, ...] = ()
    fate: str = "kill"
    requeue_order: str = "arrival"
    checkpointing: Checkpointing = Checkpointing()
    allocation: str = "first-fit"
    node_size: int = 1
    max_requeues: int = 10
    source: str = ""

    @property
    def mtbf(self) -> float | None:
        """The node MTBF when failures are drawn."""
        return None if self.model is None else self.model.mtbf

    def check_nodes(self, nodes: int) -> None:
        """InputError at the first replayed failure of a node a machine of ``nodes`` nodes
        does not have."""
        for failure in self.replayed:
            check_node_ids(failure.nodes, nodes, self.node_size, file=self.source,
                           line=failure.line, column="nodes")


def check_node_ids(ids: Sequence[int], nodes: int, node_size: int, *, file: str, line: int,
                   column: str) -> None:
    """InputError naming ``file``, ``line`` and ``column`` unless every node of ``ids`` is
    one of a machine's ``nodes`` nodes (of ``node_size`` processors)."""
    too_high = [node for node in ids if node >= nodes]
    if too_high:
        raise InputError(f"node {too_high[0]} does not exist: the machine has {nodes} nodes "
                         f"of {node_size} processor(s)", file=file, line=line, field=column)


#: The keys of a ``--failures`` text and what each sets.
FAILURE_KEYS = ("mtbf", "repair", "distribution", "shape", "repair_distribution", "seed",
                "file", "fate", "requeue", "checkpoint_interval", "checkpoint_cost",
                "restart_cost", "allocation", "node_size", "max_requeues")


def parse_failure_spec(text: str, *, field: str = "--failures", seed: int = 0) -> FailureSpec:
    """A :class:`FailureSpec` from ``KEY=VALUE,...`` (``mtbf=7d,repair=4h,fate=requeue``)
    or a failure file's path (with ``,KEY=VALUE`` after it, e.g.
    ``outages.csv,fate=checkpoint``); drawn failures take ``seed`` unless the text gives
    one.  One InputError naming ``field`` and the key on any mistake."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise InputError("expected mtbf=SECONDS or a failure file", field=field)
    if "=" not in items[0]:
        items[0] = f"file={items[0]}"
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not value.strip():
            raise InputError(f"expected KEY=VALUE, got {item!r}", field=field)
        if key not in FAILURE_KEYS:
            raise InputError(f"unknown key {key!r}{did_you_mean(key, FAILURE_KEYS)} (keys: "
                             f"{', '.join(FAILURE_KEYS)})", field=field)
        if key in values:
            raise InputError(f"key {key!r} is given twice", field=field)
        values[key] = value.strip()
    return _failure_spec(values, field, seed)


def _failure_spec(values: dict[str, str], field: str, seed: int) -> FailureSpec:
    def where(key: str) -> str:
        return f"{field} {key}"

    def choice(key: str, choices: tuple[str, ...], default: str) -> str:
        value = values.get(key, default)
        if value not in choices:
            raise InputError(f"expected one of {', '.join(choices)}, got {value!r}",
                             field=where(key))
        return value

    def count(key: str, default: int, low: int) -> int:
        if key not in values:
            return default
        value = parse_int(values[key], field=where(key), limit=MAX_SECONDS)
        if value < low:
            raise InputError(f"expected an integer >= {low}, got {value}", field=where(key))
        return value

    if ("mtbf" in values) == ("file" in values):
        raise InputError("give either mtbf=SECONDS (failures drawn per node) or a failure "
                         "file, not both and not neither", field=field)
    model = None
    replayed: tuple[Failure, ...] = ()
    if "mtbf" in values:
        shape = values.get("shape", "0.7")
        try:
            shape_value = float(shape)
        except ValueError:
            raise InputError(f"expected a number, got {shape!r}", field=where("shape")) from None
        model = FailureModel(
            mtbf=parse_seconds(values["mtbf"], field=where("mtbf")),
            repair=parse_seconds(values.get("repair", "1h"), field=where("repair")),
            distribution=choice("distribution", FAILURE_DISTRIBUTIONS, "exponential"),
            shape=shape_value,
            repair_distribution=choice("repair_distribution", REPAIR_DISTRIBUTIONS,
                                       "exponential"),
            seed=count("seed", seed, 0))
    else:
        for key in ("repair", "distribution", "shape", "repair_distribution", "seed"):
            if key in values:
                raise InputError(f"{key} belongs to drawn failures (mtbf=...); a failure file "
                                 f"gives every outage", field=where(key))
        replayed = read_failures(values["file"])
    interval_text = values.get("checkpoint_interval", "young")
    interval: int | None = None
    rule = "young"
    if interval_text in INTERVAL_RULES:
        rule = interval_text
    else:
        interval = int(parse_seconds(interval_text, field=where("checkpoint_interval")))
    checkpointing = Checkpointing(
        cost=count("checkpoint_cost", 60, 0), restart=count("restart_cost", 60, 0),
        interval=interval, rule=rule)
    fate = choice("fate", FATES, "kill")
    for key in ("checkpoint_interval", "checkpoint_cost", "restart_cost"):
        if key in values and fate != "checkpoint":
            raise InputError(f"{key} applies to fate=checkpoint only", field=where(key))
    for key in ("requeue", "max_requeues"):
        if key in values and fate == "kill":
            raise InputError(f"{key} applies to fate=requeue or checkpoint", field=where(key))
    return FailureSpec(model=model, replayed=replayed, fate=fate,
                       requeue_order=choice("requeue", REQUEUE_ORDERS, "arrival"),
                       checkpointing=checkpointing,
                       allocation=choice("allocation", ALLOCATIONS, "first-fit"),
                       node_size=count("node_size", 1, 1),
                       max_requeues=count("max_requeues", 10, 0), source=values.get("file", ""))


# --------------------------------------------------------------------------- files

def _rows(path: str, what: str, needed: tuple[str, ...]
          ) -> tuple[str, list[tuple[int, dict[str, str]]]]:
    """The data rows of a CSV file whose header names at least the ``needed`` columns, as
    dicts by lowercase column name, each with its line (:func:`schedlab.textio.csv_rows`)."""
    source = str(path)
    rows = list(csv_rows(read_text(path, what)))
    if not rows:
        raise InputError("expected a header line naming the columns", file=source)
    header_line, header = rows[0]
    names = [name.lower() for name in header]
    for name in needed:
        if name not in names:
            raise InputError(f"missing column {name!r} (columns: {', '.join(needed)})",
                             file=source, line=header_line, field=name)
    records = []
    for number, cells in rows[1:]:
        if len(cells) != len(names):
            raise InputError(f"expected {len(names)} fields, got {len(cells)} (the header names "
                             f"{len(names)} columns)", file=source, line=number)
        records.append((number, dict(zip(names, cells))))
    return source, records


def _node_ids(text: str, source: str, line: int, column: str = "nodes") -> tuple[int, ...]:
    """Node ids written as ``3``, ``3;7`` or ``3-5;9`` (ranges inclusive), in ``column``."""
    nodes: list[int] = []
    for part in text.split(";"):
        low, dash, high = part.strip().partition("-")
        first = parse_int(low.strip(), field=column, file=source, line=line)
        last = parse_int(high.strip(), field=column, file=source, line=line) if dash else first
        if first < 0 or last < first:
            raise InputError(f"expected node ids >= 0 such as 3, 3;7 or 3-5, got {text!r}",
                             file=source, line=line, field=column)
        if last - first > 10**6:
            raise InputError(f"a range of more than 10**6 nodes: {part!r}", file=source,
                             line=line, field=column)
        nodes.extend(range(first, last + 1))
    if len(set(nodes)) != len(nodes):
        raise InputError(f"a node is named twice in {text!r}", file=source, line=line,
                         field=column)
    return tuple(sorted(nodes))


def read_failures(path: str) -> tuple[Failure, ...]:
    """The failures of a failure file, sorted by time.

    A CSV file with the columns ``time`` (seconds since the trace start),
    ``nodes`` (node ids: ``3``, ``3;7``, ``3-5``) and ``duration`` (seconds
    > 0 until the nodes are back).  Two outages of one node that overlap,
    a negative time, a duration <= 0 or a malformed field is an InputError
    naming the file, the line and the field.
    """
    source, rows = _rows(path, "failure file", ("time", "nodes", "duration"))
    failures = []
    for line, row in rows:
        time = parse_int(row["time"], field="time", file=source, line=line)
        duration = parse_int(row["duration"], field="duration", file=source, line=line)
        if time < 0:
            raise InputError(f"expected a time >= 0, got {time}", file=source, line=line,
                             field="time")
        if duration <= 0:
            raise InputError(f"expected a duration > 0, got {duration}", file=source,
                             line=line, field="duration")
        if time + duration > MAX_TIME:
            raise InputError(f"the nodes would be back after 2**53 s ({time} + {duration}), "
                             f"beyond every time schedlab simulates", file=source, line=line,
                             field="duration")
        failures.append(Failure(time, _node_ids(row["nodes"], source, line), duration, line))
    failures.sort(key=lambda failure: (failure.time, failure.line))
    _check_no_overlap(failures, source)
    return tuple(failures)


def _check_no_overlap(failures: list[Failure], source: str) -> None:
    """InputError at the first failure of a node that is still down from an earlier one."""
    back: dict[int, tuple[int, int]] = {}
    for failure in failures:
        for node in failure.nodes:
            end, line = back.get(node, (-1, 0))
            if failure.time < end:
                raise InputError(f"node {node} fails at {failure.time} while it is down from "
                                 f"line {line} until {end}", file=source, line=failure.line,
                                 field="nodes")
            back[node] = (failure.end, failure.line)


def read_windows(path: str) -> tuple[Window, ...]:
    """The maintenance windows and drains of a window file, sorted by notice then start.

    A CSV file with the columns ``start`` and ``end`` (seconds since the
    trace start) and ``nodes`` (a number of processors, or ``all``), and
    optionally ``notice`` (when the window is announced; default: its
    start), ``kind`` (``maintenance``, the default, or ``drain``: a drain
    is announced at its start, so it gives no notice) and ``node_ids``
    (the nodes it takes, as in a failure file: ``3``, ``3;7``, ``3-5``;
    ``nodes`` is then left empty).  A window that ends before it starts, a
    notice after the start, a drain with an earlier notice, a line giving
    both ``nodes`` and ``node_ids`` or a malformed field is an InputError
    naming the file, the line and the field.
    """
    source, rows = _rows(path, "maintenance file", ("start", "end", "nodes"))
    windows = []
    for line, row in rows:
        ids_text = row.get("node_ids", "").strip()
        if ids_text and row["nodes"].strip():
            raise InputError("give the nodes either as a count or all (nodes) or by id "
                             "(node_ids), not both", file=source, line=line, field="node_ids")
        start = parse_int(row["start"], field="start", file=source, line=line)
        end = parse_int(row["end"], field="end", file=source, line=line)
        notice_text = row.get("notice", "")
        notice = start if notice_text == "" else parse_int(notice_text, field="notice",
                                                           file=source, line=line)
        kind = row.get("kind", "") or "maintenance"
        if kind not in WINDOW_KINDS:
            raise InputError(f"expected one of {', '.join(WINDOW_KINDS)}, got {kind!r}",
                             file=source, line=line, field="kind")
        nodes_text = row["nodes"].lower()
        node_ids = _node_ids(ids_text, source, line, "node_ids") if ids_text else ()
        processors = None if nodes_text == "all" or node_ids else parse_int(
            row["nodes"], field="nodes", file=source, line=line)
        problem = _window_problem(start, end, notice, kind, processors)
        if problem is not None:
            raise InputError(problem[1], file=source, line=line, field=problem[0])
        windows.append(Window(notice, start, end, processors, kind, line, node_ids, source))
    windows.sort(key=lambda window: (window.notice, window.start, window.line))
    return tuple(windows)


def _window_problem(start: int, end: int, notice: int, kind: str,
                    processors: int | None) -> tuple[str, str] | None:
    """``(column, what is wrong)`` with a window's fields, None when they are right."""
    checks = (
        ("start", start < 0, "expected a start >= 0"),
        ("end", end <= start, f"the window ends ({end}) before it starts ({start})"),
        ("notice", notice < 0, "expected a notice >= 0"),
        ("notice", notice > start, f"the window is announced ({notice}) after it starts "
                                   f"({start})"),
        ("notice", kind == "drain" and notice != start,
         "a drain is announced at its start: give no earlier notice"),
        ("nodes", processors is not None and processors < 1,
         "expected a number of processors >= 1, or all"),
    )
    return next(((column, what) for column, wrong, what in checks if wrong), None)


