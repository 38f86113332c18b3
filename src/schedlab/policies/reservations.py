"""Advance reservations with Catalina semantics and throttling (Margo et al.).

One implementation shared by EASY, conservative backfilling and the
planning-based policies (docs/reference/reservations.md):

* **Catalina semantics** (Margo et al., §2): "the scheduler ... allows users
  to create reservations only after all eligible jobs have been given
  reservations.  This means that the existing job queue is not affected by
  user-settable reservations."  A request is therefore decided in the
  scheduling pass after its arrival, against the policy's *full plan*: the
  running jobs, the reservations granted before, and a reservation for every
  waiting job (:func:`decide_requests`).  Conservative backfilling and the
  planning-based policies keep that plan anyway; for EASY it is built for
  the occasion (:func:`queue_plan`).
* **Placement** — the paper does not say what becomes of a request whose
  time is taken in the plan (§2 orders requests after the jobs' reservations;
  §5 "injected 15 reservations during each week").  Our reading, the
  default ``placement="exact"``: granted at the requested start if the plan
  has its processors free for its whole duration, otherwise rejected; the
  other reading, ``placement="earliest"``: moved to the earliest start from
  the requested one where it fits, so every request is placed.
* **Throttling** (§2): "the total node-seconds of user-settable
  reservations within any sliding 7 day period must not exceed 256 nodes *
  12 hours" (``cap``, ``window``); the paper's future work (§7–8) adds a
  minimum duration and a minimum advance notice.  Every refusal carries a
  reason code, counted in the metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedlab.engine.policy import check_bool, check_choice, check_number
from schedlab.engine.reservation_rules import HOUR, PAPER_CAP, PLACEMENTS, WEEK, ReservationRules  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from schedlab.engine.context import Context
    from schedlab.engine.profile import Profile
    from schedlab.workload.job import Job
    from schedlab.workload.reservations import Reservation

# Reasons for refusing a request (``Result.reservations.reason``).
TOO_SHORT = "too_short"
SHORT_NOTICE = "short_notice"
START_PASSED = "start_passed"
OVER_CAP = "over_cap"
BUSY = "busy"
#: Every reason this module gives, with its meaning (docs/reference/reservations.md).
REASONS = {
    TOO_SHORT: "shorter than the minimum duration",
    SHORT_NOTICE: "asked for less than the minimum advance notice before its start",
    START_PASSED: "the requested start had passed when the scheduler saw the request "
                  "(exact placement, scheduling ticks)",
    OVER_CAP: "would raise the reserved node-seconds of some sliding window above the cap",
    BUSY: "the processors are not free at the requested time in the full plan "
          "(exact placement)",
}


#: The reservation parameters of every policy with Catalina semantics, with their
#: defaults (docs/reference/reservations.md, "Placement and throttling"): where a request goes
#: (``"exact"`` or ``"earliest"``), the sliding-window cap (``throttle``;
#: ``reservation_cap`` node-seconds, the paper's 256 nodes x 12 h when ``None``, and
#: implied when given; ``reservation_window`` seconds), and the refusal of short
#: reservations and of short-notice requests (seconds).
RESERVATION_PARAMS: dict[str, Any] = {
    "reservation_placement": "exact", "throttle": False, "reservation_cap": None,
    "reservation_window": WEEK, "min_reservation_duration": 0, "min_reservation_notice": 0,
}


class CatalinaReservations:
    """Mixin for policies that take reservation requests with Catalina semantics.

    The request stays pending at its arrival; the policy's next scheduling
    pass places every job in its plan first and then calls
    :func:`decide_requests` (Margo et al., §2).  Placement and throttling
    are parameters of the policy (:data:`RESERVATION_PARAMS`): ``__init__``
    takes them as ``**reservation`` and hands them to
    :meth:`init_reservation_params`.
    """

    shared_params = RESERVATION_PARAMS

    def init_reservation_params(self, **given: Any) -> None:
        """Check and store the reservation parameters; build :attr:`reservation_rules`."""
        for key in given:
            if key not in RESERVATION_PARAMS:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument "
                                f"{key!r}")
        values = {**RESERVATION_PARAMS, **given}
        owner = type(self).__name__
        check_choice(owner, "reservation_placement", values["reservation_placement"],
                     PLACEMENTS)
        check_bool(owner, "throttle", values["throttle"])
        if values["reservation_cap"] is not None:
            check_number(owner, "reservation_cap", values["reservation_cap"], int, 0)
        check_number(owner, "reservation_window", values["reservation_window"], int, 1)
        check_number(owner, "min_reservation_duration", values["min_reservation_duration"],
                     int, 0)
        check_number(owner, "min_reservation_notice", values["min_reservation_notice"], int, 0)
        for name, value in values.items():
            setattr(self, name, value)
        self.reservation_rules = rules_from_params(values)

    def on_reservation_request(self, ctx: Context, request: Reservation) -> None:
        """Keep the request pending: it is decided after the jobs are placed (Catalina)."""


def rules_from_params(params: Mapping[str, Any]) -> ReservationRules:
    """The :class:`ReservationRules` of a policy's reservation parameters.

    The cap is ``reservation_cap`` when given (throttling is then implied),
    else :data:`PAPER_CAP` with ``throttle``, else none.
    """
    cap = params["reservation_cap"]
    if cap is None and params["throttle"]:
        cap = PAPER_CAP
    return ReservationRules(placement=params["reservation_placement"], cap=cap,
                            window=params["reservation_window"],
                            min_duration=params["min_reservation_duration"],
                            min_notice=params["min_reservation_notice"])


def params_from_rules(rules: ReservationRules) -> dict[str, Any]:
    """The reservation parameters that give ``rules`` (the inverse of :func:`rules_from_params`)."""
    return {"reservation_placement": rules.placement, "throttle": rules.cap is not None,
            "reservation_cap": rules.cap, "reservation_window": rules.window,
            "min_reservation_duration": rules.min_duration,
            "min_reservation_notice": rules.min_notice}


def decide_requests(ctx: Context, plan: Profile, rules: ReservationRules) -> None:
    """Grant or refuse every pending request, in arrival order, against the full ``plan``.

    ``plan`` is the availability profile from now with the running jobs,
    the reservations already granted and a reservation for every eligible
    waiting job; each granted request is reserved in it, so a later request
    of the same pass sees it.
    """
    for request in list(ctx.pending_requests.values()):
        start, reason = place_request(request, plan, ctx.now, rules,
                                      ctx.granted_reservations())
        if reason is not None:
            ctx.refuse(request, reason)
            continue
        ctx.grant(request, start)
        plan.reserve(start, request.duration, request.width)


def place_request(request: Reservation, plan: Profile, now: int, rules: ReservationRules,
                  granted: Sequence[tuple[int, int, int]]) -> tuple[int, str | None]:
    """Where a request goes: ``(start, None)``, or ``(-1, reason)`` when it is refused.

    The checks run in this order: minimum duration, minimum notice, a
    requested start already past (exact placement), the placement (the
    requested start, or with ``"earliest"`` the earliest fit in ``plan`` from
    ``max(requested start, now)``), the sliding-window cap at that start,
    and last, for exact placement, whether ``plan`` has the processors free.
    ``granted`` holds ``(start, duration, width)`` of every reservation
    granted so far.
    """
    if request.duration < rules.min_duration:
        return -1, TOO_SHORT
    if request.notice < rules.min_notice:
        return -1, SHORT_NOTICE
    if rules.placement == "exact":
        if request.start < now:
            return -1, START_PASSED
        start = request.start
    else:
        start = plan.earliest_fit(request.width, request.duration, max(request.start, now))
    if rules.cap is not None and over_cap(start, request.duration, request.width, granted,
                                          rules.window, rules.cap):
        return -1, OVER_CAP
    if rules.placement == "exact" and \
            plan.min_free(start, start + request.duration) < request.width:
        return -1, BUSY
    return start, None


def over_cap(start: int, duration: int, width: int, granted: Iterable[tuple[int, int, int]],
             window: int, cap: int) -> bool:
    """Whether adding ``[start, start + duration)`` x ``width`` breaks the sliding-window cap.

    The cap (Margo et al., §2) bounds, for *every* window ``[t, t + window)``,
    the node-seconds of granted reservations inside it: the sum over
    reservations of width x the length of their overlap with the window.
    Only windows that overlap the new reservation can change; see
    :func:`peak_window_load`.
    """
    end = start + duration
    near = [(s, s + d, w) for s, d, w in granted if s < end + window and s + d > start - window]
    near.append((start, end, width))
    return peak_window_load(near, window, start - window, end) > cap


def peak_window_load(intervals: Sequence[tuple[int, int, int]], window: int, lo: int,
                     hi: int) -> int:
    """Largest node-seconds inside ``[t, t + window)`` over window starts ``t`` in ``[lo, hi]``.

    ``intervals`` are ``(start, end, width)``.  The load is piecewise linear
    in ``t`` and changes slope only where a window edge meets an interval
    edge, so its maximum is at ``lo``, ``hi`` or some ``start``, ``end``,
    ``start - window`` or ``end - window`` in between.
    """
    candidates = {lo, hi}
    for s, e, _ in intervals:
        candidates.update(t for t in (s, e, s - window, e - window) if lo <= t <= hi)
    return max(window_load(intervals, t, window) for t in candidates)


def window_load(intervals: Iterable[tuple[int, int, int]], t: int, window: int) -> int:
    """Node-seconds of ``(start, end, width)`` intervals inside ``[t, t + window)``."""
    top = t + window
    return sum(w * (min(e, top) - max(s, t)) for s, e, w in intervals if s < top and e > t)


def queue_plan(ctx: Context, queue: Iterable[Job]) -> Profile:
    """EASY's full plan for Catalina: the profile with every waiting job given a reservation.

    EASY itself protects only its first waiting job.  To grant a request
    "only after all eligible jobs have been given reservations" (Margo et
    al., §2) every waiting job is placed, in EASY's queue order, at its
    earliest fit around the running jobs and the granted reservations — the
    reservations conservative backfilling would give them now.
    """
    plan = ctx.profile()
    now = ctx.now
    for job in queue:
        plan.place(job.width, job.estimate, now)
    return plan
