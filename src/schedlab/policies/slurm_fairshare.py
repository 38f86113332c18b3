"""Slurm's fair-share factor: decayed usage over an association tree, Fair Tree or classic.

Our reading of Slurm 22.05's ``src/plugins/priority/multifactor/`` (the
priority/multifactor page says what the factor means; the source, how it is
computed; no code of it is here):

* **Usage** is CPU-seconds (the TRES-billing CPUs of Slurm's raw usage without
  ``TRESBillingWeights``), kept per association and added to every ancestor up
  to the root.  Slurm's decay thread runs every ``PriorityCalcPeriod``: it
  multiplies all usage by ``d ** elapsed`` (``d = 1 - 0.693 / half-life``, per
  second; no decay with a half-life of 0), then adds each running job's usage
  since the last run, ``t * d ** t`` CPU-seconds per CPU for ``t`` seconds run
  in that period.  A job that ends adds its usage since the last run at its end
  only where ``AccountingStorageEnforce`` includes ``limits`` (``safe``,
  ``all``): Slurm's ``priority_g_job_end`` is called from the limits'
  accounting (``_adjust_limit_usage`` in ``src/slurmctld/acct_policy.c``);
  otherwise the stretch since the last run is never counted.
  ``PriorityUsageResetPeriod`` zeroes all usage at the first run on or after
  the period's boundary (midnight, Sunday midnight, the first of a month,
  quarter or year; UTC here).
* **Fair Tree** (the default): among siblings, an association's level
  fair-share is ``S / U``: its shares over its siblings' (level) shares, over
  its usage over its parent's (infinite for no usage, 0 for no shares).
  Siblings are ranked by it, highest first (a user before an account at a tie),
  accounts recursed into in place; each user association met gets the rank
  ``n, n-1, ...`` (``n`` user associations in the tree; a user tied with the one
  before takes its rank, and the first user of an account tied with the sibling
  before it too), and its factor is ``rank / n``.  Tied accounts are not merged
  in 22.05.8 (``_count_tied_accounts`` stops at the first account): each is
  recursed into on its own.
* **Classic** (``PriorityFlags=NO_FAIR_TREE``): normalised shares are the
  product, from the association up to the root, of each one's shares over its
  level's; normalised usage is usage over the root's (at most 1); effective
  usage is the normalised usage for a child of root, else
  ``u + (parent's effective usage - u) * shares / level shares``; the factor
  is ``2 ** -(effective usage / normalised shares)`` (0 without shares).
* The factors are computed at each run, after its usage update, and are what
  every priority uses until the next run.  For classic, Slurm computes the
  accounts' effective usage at the start of the run, before its decay and
  new usage (``_set_children_usage_efctv`` in ``_decay_thread``), so a user's
  factor lags a run behind for the account part; the policy does the same.
  *Our reading*: a user's own normalised usage is taken after the run's
  update (Slurm computes it when the user's first job is met in the job
  list, part-way through the update).
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from schedlab.errors import InputError
from schedlab.workload.slurmassoc import ROOT, Association

#: Slurm's decay constant: ln 2 to three places.
_LN2 = 0.693


class AssociationTree:
    """The association tree: node 0 is root; each node has a parent, shares and whether it
    is a user's association (a leaf); ``nodes`` finds a node by (account, user), the
    user empty for an account's own node."""

    def __init__(self) -> None:
        self.parent: list[int] = [-1]
        self.shares: list[int] = [1]
        self.is_user: list[bool] = [False]
        self.children: list[list[int]] = [[]]
        self.nodes: dict[tuple[str, str], int] = {(ROOT, ""): 0}
        self._level: list[int] | None = None
        self._users_first: list[list[int]] | None = None

    @classmethod
    def of(cls, associations: Sequence[Association]) -> AssociationTree:
        """The tree of ``associations`` (each account before what hangs from it); an
        InputError for one that hangs from an account the table lacks."""
        tree = cls()
        pending = list(associations)
        while pending:
            placed = [row for row in pending if tree.parent_of(row) in tree.nodes]
            if not placed:
                raise InputError(f"association {pending[0]} hangs from an account the "
                                 f"table lacks", field="associations")
            for row in placed:
                tree.add_association(row)
            pending = [row for row in pending if row not in placed]
        return tree

    @staticmethod
    def parent_of(row: Association) -> tuple[str, str]:
        return (row.account, "") if row.user else (row.parent, "")

    def add_association(self, row: Association) -> int:
        """The node of ``row``, added under its parent's."""
        node = self.add(self.nodes[self.parent_of(row)], row.shares, bool(row.user))
        self.nodes[row.account, row.user] = node
        return node

    def add(self, parent: int, shares: int, is_user: bool) -> int:
        """A new node under ``parent``; its index."""
        self.parent.append(parent)
        self.shares.append(shares)
        self.is_user.append(is_user)
        self.children.append([])
        self.children[parent].append(len(self.parent) - 1)
        return len(self.parent) - 1

    def __len__(self) -> int:
        return len(self.parent)

    def users_first(self) -> list[list[int]]:
        """Every node's children, its users' nodes before its accounts' (each kind in the
        order added): the order Fair Tree ranks siblings in at a tie."""
        if self._users_first is None or len(self._users_first) != len(self.parent):
            self._users_first = [[k for k in children if self.is_user[k]]
                                 + [k for k in children if not self.is_user[k]]
                                 for children in self.children]
        return self._users_first

    def level_shares(self) -> list[int]:
        """The level shares of every node: its own and its siblings' shares together
        (computed once per shape of the tree: every decay run asks)."""
        if self._level is not None and len(self._level) == len(self.parent):
            return self._level
        level = [self.shares[0]] * len(self.parent)
        for children in self.children:
            total = sum(self.shares[k] for k in children)
            for k in children:
                level[k] = total
        self._level = level
        return level


class FairShare:
    """Decayed usage of the associations of ``tree`` and their fair-share factors.

    Times are seconds of the simulation; a decay run falls at every time ``t`` with
    ``(t + clock_origin - calc_offset) % calc_period == 0``.  Call :meth:`started` and
    :meth:`ended` as jobs start and end, and :meth:`factors` for the factors in force
    at a time; time never goes back.
    """

    def __init__(self, tree: AssociationTree, *, fair_tree: bool, half_life: int,
                 calc_period: int, calc_offset: int = 0, clock_origin: int = 0,
                 reset_period: str = "NONE", usage_at_end: bool = False) -> None:
        self.tree = tree
        self.usage_at_end = usage_at_end
        self.fair_tree = fair_tree
        self.decay = 1.0 - _LN2 / half_life if half_life > 0 else 1.0
        self.calc_period = calc_period
        self.clock_origin = clock_origin
        self.reset_period = reset_period
        first = -((clock_origin - calc_offset) % calc_period)
        self._next_run = first if first >= 0 else first + calc_period
        self._last_run: int | None = None
        self._next_reset = (_next_reset(reset_period, clock_origin) - clock_origin
                            if reset_period not in ("NONE", "NOW") else None)
        self.usage: list[float] = [0.0] * len(tree)
        self._running: dict[int, tuple[int, int, int]] = {}   # id -> (leaf, CPUs, start)
        self._snapshot: list[float] = list(self.usage)
        self._before: list[float] = list(self.usage)     # usage before the last run
        self._factors: list[float] | None = None

    def grown(self) -> None:
        """Nodes were added to the tree (no usage yet)."""
        added = len(self.tree) - len(self.usage)
        self.usage += [0.0] * added
        self._snapshot += [0.0] * added
        self._before += [0.0] * added
        self._factors = None

    def started(self, job_id: int, leaf: int, cpus: int, now: int) -> None:
        self._catch_up(now)
        self._running[job_id] = (leaf, cpus, now)

    def ended(self, job_id: int, now: int) -> None:
        """A running job left at ``now``: with ``usage_at_end``, its usage since the last
        run is added.  A run in the same second comes after the end (our reading: the
        validation cluster's decay runs fell half a second into their second)."""
        self._catch_up(now - 1)
        leaf, cpus, start = self._running.pop(job_id)
        if self.usage_at_end:
            self._add(leaf, cpus, now - self._since(start))

    def factors(self, now: int) -> list[float]:
        """The fair-share factor of every node (used for users' nodes) as the latest run
        at or before ``now`` computed it."""
        self._catch_up(now)
        if self._factors is None:
            self._factors = (fair_tree_factors(self.tree, self._snapshot) if self.fair_tree
                             else classic_factors(self.tree, self._snapshot, self._before))
        return self._factors

    # ------------------------------------------------------------------ decay runs
    def _since(self, start: int) -> int:
        return start if self._last_run is None else max(self._last_run, start)

    def _add(self, leaf: int, cpus: int, seconds: int) -> None:
        """Usage of ``cpus`` CPUs for ``seconds`` seconds, decayed as Slurm adds it."""
        if seconds <= 0:
            return
        amount = seconds * self.decay ** seconds * cpus
        node = leaf
        while node >= 0:
            self.usage[node] += amount
            node = self.tree.parent[node]

    def _catch_up(self, now: int) -> None:
        """Every decay run due by ``now``; runs with the same running jobs as the one
        before are summed in closed form, but the last, whose usage before it classic
        fair-share needs."""
        ran = False
        before = self.usage
        while self._next_run <= now:
            before = list(self.usage)
            self._run(self._next_run)
            ran = True
            steady = self._steady_runs(now)
            if steady > 1:
                self._run_many(steady - 1)
        if ran:
            self._before = before
            self._snapshot = list(self.usage)
            self._factors = None

    def _run(self, at: int) -> None:
        """One decay run at ``at``: reset if due, decay, add the running jobs' usage."""
        if self._next_reset is not None and at >= self._next_reset:
            self.usage = [0.0] * len(self.usage)
            self._next_reset = (_next_reset(self.reset_period, self._next_reset
                                            + self.clock_origin) - self.clock_origin)
        if self._last_run is not None and self.decay != 1.0:
            factor = self.decay ** (at - self._last_run)
            self.usage = [value * factor for value in self.usage]
        for leaf, cpus, start in self._running.values():
            self._add(leaf, cpus, at - self._since(start))
        self._last_run = at
        self._next_run = at + self.calc_period

    def _steady_runs(self, now: int) -> int:
        """How many further runs by ``now`` see every running job for a whole period and
        no reset (each adds the same usage)."""
        if self._next_run > now:
            return 0
        count = (now - self._next_run) // self.calc_period + 1
        if self._next_reset is not None:
            count = min(count, -(-(self._next_reset - self._next_run) // self.calc_period))
        return max(count, 0)

    def _run_many(self, count: int) -> None:
        """``count`` runs a whole period apart, the running jobs the same in all:
        u <- u d^p + c, ``count`` times, in closed form."""
        period = self.calc_period
        step = self.decay ** period
        added = [0.0] * len(self.usage)
        per_cpu = period * step
        for leaf, cpus, _ in self._running.values():
            node = leaf
            while node >= 0:
                added[node] += per_cpu * cpus
                node = self.tree.parent[node]
        total = step ** count
        growth = count if step == 1.0 else (1.0 - total) / (1.0 - step)
        self.usage = [value * total + extra * growth
                      for value, extra in zip(self.usage, added)]
        self._last_run = self._next_run + (count - 1) * period
        self._next_run = self._last_run + period


def fair_tree_factors(tree: AssociationTree, usage: Sequence[float]) -> list[float]:
    """Fair Tree's factor of every user node (see the module): ``rank / users``."""
    factors = [0.0] * len(tree)
    users = sum(tree.is_user)
    if users == 0:
        return factors
    state = [users, users]        # the rank given last, the next rank not yet given
    negated = level_fair_shares(tree, usage)
    negated = (-negated).tolist()   # sorted on ascending: the highest level fair-share first
    users_first = tree.users_first()

    def walk(siblings: list[int], tied_from_parent: bool) -> None:
        ranked = sorted(siblings, key=negated.__getitem__)    # (stable: users first at a tie)
        previous: float | None = None
        for k, node in enumerate(ranked):
            value = negated[node]
            tied = tied_from_parent if k == 0 else value == previous
            if tree.is_user[node]:
                if not tied:
                    state[0] = state[1]
                factors[node] = state[0] / users
                state[1] -= 1
            else:
                walk(users_first[node], tied)
            previous = value

    walk(users_first[0], False)
    return factors


def level_fair_shares(tree: AssociationTree, usage: Sequence[float]) -> np.ndarray:
    """Every node's level fair-share ``S / U`` among its siblings (see the module; the
    root's is meaningless): infinite for no usage, 0 for no shares."""
    shares = np.asarray(tree.shares, np.float64)
    level = np.asarray(tree.level_shares(), np.float64)
    used = np.asarray(usage, np.float64)
    parent_used = used[np.asarray(tree.parent, np.int64)]
    norm_shares = np.divide(shares, level, out=np.zeros_like(shares), where=level != 0)
    efctv = np.divide(used, parent_used, out=np.zeros_like(used), where=parent_used != 0)
    with np.errstate(divide="ignore"):
        value = np.where(efctv == 0.0, np.inf, norm_shares / np.where(efctv == 0.0, 1.0, efctv))
    return np.where(norm_shares == 0.0, 0.0, value)


def classic_factors(tree: AssociationTree, usage: Sequence[float],
                    before: Sequence[float] | None = None) -> list[float]:
    """Classic fair-share's factor of every node (see the module): ``2 ** -(UE / S)``.

    ``usage`` is the usage after the decay run, ``before`` (default: the same) before
    it: accounts' effective usage comes from ``before``, users' own normalised usage
    from ``usage``.
    """
    count = len(tree)
    before = usage if before is None else before
    norm_shares = [1.0] * count
    efctv = [0.0] * count
    factors = [0.0] * count
    levels = tree.level_shares()
    for node in range(1, count):        # parents come before their children
        parent = tree.parent[node]
        level = levels[node]
        own = tree.shares[node] / level if level else 0.0
        norm_shares[node] = own * (norm_shares[parent] if parent else 1.0)
        seen = usage if tree.is_user[node] else before
        norm_usage = min(seen[node] / seen[0], 1.0) if seen[0] else 0.0
        if parent == 0:
            efctv[node] = norm_usage
        elif not level:
            efctv[node] = efctv[parent]
        else:
            efctv[node] = norm_usage + (efctv[parent] - norm_usage) * tree.shares[node] / level
        factors[node] = (2.0 ** -(efctv[node] / norm_shares[node])
                         if norm_shares[node] > 0 else 0.0)
    return factors


def _next_reset(period: str, last: int) -> int:
    """The Unix time of the first usage reset after ``last`` (UTC; Slurm's ``_next_reset``
    counts in local time)."""
    moment = datetime.fromtimestamp(last, tz=UTC)
    midnight = calendar.timegm((moment.year, moment.month, moment.day, 0, 0, 0))
    if period == "DAILY":
        return midnight + 86400
    if period == "WEEKLY":          # the next Sunday's midnight
        days = 7 - (moment.isoweekday() % 7)
        return midnight + 86400 * days
    year, month = moment.year, moment.month
    if period == "MONTHLY":
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    elif period == "QUARTERLY":
        month = 3 * ((month - 1) // 3 + 1) + 1
        year, month = (year + 1, 1) if month > 12 else (year, month)
    else:                            # YEARLY
        year, month = year + 1, 1
    return calendar.timegm((year, month, 1, 0, 0, 0))
