"""Small gang schedules worked out by hand (docs/reference/policies/gang.md gives the rules).

Jobs are ``(id, submit, runtime, width)`` with estimate = runtime unless
given; every schedule lists (start, end) per job: start is the first second
of service, end the second the job's service is complete.
"""

from __future__ import annotations

import pytest

from schedlab.engine.timesharing import run_timesharing
from schedlab.metrics import compute_metrics
from schedlab.policies.gang import GangScheduler
from schedlab.testing import check_invariants
from schedlab.workload.job import Job, Workload


def simulate(jobs, processors, **params):
    workload = Workload(tuple(Job(i, s, r, e, w) for i, s, r, e, w in jobs), processors)
    result = run_timesharing(workload, GangScheduler(**params))
    check_invariants(result, workload)
    return {int(i): (int(s), int(e)) for i, s, e in
            zip(result.job_id, result.start, result.end)}, result


def test_two_rows_served_round_robin_and_a_slot_ends_with_its_row():
    # A (25 s) in row 0, B (15 s) in row 1, slot 10: A 0-10, B 10-20, A 20-30,
    # B 30-35 (its row is empty at 35: the next slot starts at once), A 35-40.
    times, result = simulate([(1, 0, 25, 25, 2), (2, 0, 15, 15, 2)], 2, slot=10)
    assert times == {1: (0, 40), 2: (10, 35)}
    assert result.timesharing.service.tolist() == [25, 15]
    assert result.suspended.tolist() == [15, 10]


def test_context_switch_at_every_change_of_row():
    # The same jobs with 2 s per switch: A 2-12, B 14-24, A 26-36, B 38-43, A 45-50.
    times, _ = simulate([(1, 0, 25, 25, 2), (2, 0, 15, 15, 2)], 2, slot=10,
                        context_switch=2)
    assert times == {1: (2, 50), 2: (14, 43)}


def test_a_single_row_runs_on_without_switching_and_a_slot_outlives_an_early_end():
    # One row (A on processor 0, B on 1); the first slot costs the switch (3 s):
    # service 3-13, B ends at 8 but A keeps the slot to 13; then 13-23, 23-28.
    times, _ = simulate([(1, 0, 25, 25, 1), (2, 0, 5, 5, 1)], 2, slot=10, context_switch=3)
    assert times == {1: (3, 28), 2: (3, 8)}


def test_a_job_arriving_mid_round_starts_in_the_next_round():
    # A and B (30 s, machine-wide) in rows 0 and 1; C arrives at 5 and is placed at the
    # round boundary 20 in a new row 2: A 20-30, B 30-40, C 40-45; then A ends 45-55,
    # B 55-65.
    times, _ = simulate([(1, 0, 30, 30, 2), (2, 0, 30, 30, 2), (3, 5, 5, 5, 2)], 2, slot=10)
    assert times == {1: (0, 55), 2: (10, 65), 3: (40, 45)}


def test_strategy_3_runs_a_short_job_in_the_next_slot_sized_to_complete_it():
    # C (short: 15 s < 20) arrives at 3.  At the slot boundary 10 the next slot is A's
    # row, which has no free processor (A is 2 wide): C cannot join it, so an express
    # slot runs it 10-25 (longer than the 10 s slot).  A needs both processors, so it
    # cannot run there as a guest; it resumes 25-35 and ends 35-45.  (Unchanged by the
    # rule that short jobs first take free processors of the next slot: there are none.)
    jobs = [(1, 0, 30, 30, 2), (2, 3, 15, 15, 1)]
    times, result = simulate(jobs, 2, strategy=3, slot=10, short=20, long=100)
    assert times == {1: (0, 45), 2: (10, 25)}
    assert result.stats["express_slots"] == 1
    # Strategy 2 places C at the round boundary 10 in a new row: A 10-20, C 20-30,
    # A ends 30-40, C ends 40-45.
    times, _ = simulate(jobs, 2, strategy=2, slot=10, short=20, long=100)
    assert times == {1: (0, 40), 2: (20, 45)}


@pytest.mark.parametrize("slot, short_times", [
    # express_start=next-slot.  l = 1: B (short, 100 s) arrives at 5 and takes processor
    # 4, free in the only row, in the slot 5-6, lengthened to 105 so that B completes in
    # it; C (10 s) arrives at 10 in that lengthened part and joins it at once on
    # processor 5: 10-20.
    (1, {2: (5, 105), 3: (10, 20)}),
    # l = 10: B waits for the boundary 10 and takes processor 4 in the slot 10-20,
    # lengthened to 110; C arrives at 10, the same boundary: processor 5, 10-20.
    (10, {2: (10, 110), 3: (10, 20)}),
    # l = 200: both wait for the boundary 200; the slot 200-400 outlasts them.
    (200, {2: (200, 300), 3: (200, 210)}),
])
def test_strategy_3_short_jobs_take_free_processors_and_delay_no_one(slot, short_times):
    # 8 processors: A (4 wide, 1000 s) alone in row 0, three processors idle beside the
    # short jobs.  A runs every second of the slots, lengthened or not: it ends at 1000,
    # as if alone.  (The former reading ran B in an express slot of its own, 100 s in
    # which A stood still: A ended at 1100.)
    jobs = [(1, 0, 1000, 1000, 4), (2, 5, 100, 100, 1), (3, 10, 10, 10, 1)]
    times, result = simulate(jobs, 8, strategy=3, slot=slot, express_start="next-slot")
    assert times == {1: (0, 1000), **short_times}
    assert result.stats["express_slots"] == 0
    assert result.timesharing.slots_count.tolist() == [1, 0]


@pytest.mark.parametrize("slot", [1, 10, 200])
def test_strategy_3_short_jobs_start_on_arrival_on_the_running_slots_free_processors(slot):
    # The trace above with express_start=arrival (the default): B (short, 100 s) arrives at 5 while
    # A's slot runs with three processors idle, and starts there at once, 5-105, the slot
    # lengthened until B completes; C arrives at 10 and joins it at once, 10-20.  A
    # runs every second: it ends at 1000 at every slot length.
    jobs = [(1, 0, 1000, 1000, 4), (2, 5, 100, 100, 1), (3, 10, 10, 10, 1)]
    times, result = simulate(jobs, 8, strategy=3, slot=slot)
    assert times == {1: (0, 1000), 2: (5, 105), 3: (10, 20)}
    assert result.stats["express_slots"] == 0


@pytest.mark.parametrize("runtime, ends", [(4, (5, 9)), (0, (5, 5))])
def test_a_short_job_arriving_as_the_slot_empties_early_joins_it(runtime, ends):
    # 2 processors, slot 10, a switch of 1 s: A (medium) runs 1-5 in its first slot and
    # leaves it before its length; B (short) arrives at 5, the instant A ends, and joins
    # the slot still open (as the second-by-second reading in tests/gang/reference.py
    # has it): no second switch, B starts at 5, and a B needing no service ends there.
    jobs = [(1, 0, 4, 50, 1), (2, 5, runtime, 5, 1)]
    times, result = simulate(jobs, 2, strategy=3, slot=10, short=10, long=100,
                             context_switch=1, express_start="arrival")
    assert times == {1: (1, 5), 2: ends}
    assert result.stats["express_slots"] == 0


@pytest.mark.parametrize("express_start", ["arrival", "next-slot"])
def test_a_short_job_with_no_free_processor_in_the_running_slot_waits_for_the_next(
        express_start):
    # 2 processors, slot 10: A (2 wide) fills the only row; C (short, 15 s) arrives at
    # 3 and finds no free processor in A's slot, whenever it may start: an express slot
    # runs it 10-25 and A ends 35-45, under either reading.
    jobs = [(1, 0, 30, 30, 2), (2, 3, 15, 15, 1)]
    times, result = simulate(jobs, 2, strategy=3, slot=10, short=20, long=100,
                             express_start=express_start)
    assert times == {1: (0, 45), 2: (10, 25)}
    assert result.stats["express_slots"] == 1


def test_an_express_slot_runs_matrix_jobs_as_guests_and_takes_short_arrivals():
    # 4 processors, slot 10, short < 20.  Row 0: A (4 wide); row 1: B {0,1}, D {2}; all
    # 100 s.  S (short, 2 wide, 15 s) arrives at 12.  At the boundary 20 the next slot,
    # A's, has no free processor: an express slot runs S on {0,1} 20-35, and D, whose
    # processor 2 S leaves free, runs there as a guest (15 s of service).  T (short,
    # 1 wide, 5 s) arrives at 25 and joins the express slot on processor 3: 25-30.
    # Then A 35-45, row 1 45-55, and rounds of 20 s: A has 20 s at 45 and ends in the
    # slot 195-205; D has 35 s at 55, ends at 190 (slot 185-195); B ends 205-215.
    jobs = [(1, 0, 100, 100, 4), (2, 0, 100, 100, 2), (3, 0, 100, 100, 1),
            (4, 12, 15, 15, 2), (5, 25, 5, 5, 1)]
    times, result = simulate(jobs, 4, strategy=3, slot=10, short=20, long=1000)
    assert times == {1: (0, 205), 2: (10, 215), 3: (10, 190), 4: (20, 35), 5: (25, 30)}
    assert result.stats["express_slots"] == 1
    # the express slot is counted as a third slot while it runs (20-35), not after it
    trace = result.timesharing
    assert trace.slots_time.tolist() == [0, 20, 35, 215]
    assert trace.slots_count.tolist() == [2, 3, 2, 0]
    # without guests D waits in the express slot: it ends 15 s of service later
    times, _ = simulate(jobs, 4, strategy=3, slot=10, short=20, long=1000,
                        switchable=False)
    assert times[3][1] > 190


def test_at_most_one_express_slot_per_round_and_it_counts_only_while_it_runs():
    # 2 processors, slot 10: A, B, C (2 wide, 30 s) in rows 0-2.  S1 (short, 2 wide, 5 s)
    # arrives at 1: at the boundary 10 the next slot (B's) is full, so an express slot
    # runs it 10-15, then B 15-25.  S2 (the same) arrives at 12: the express slot is full,
    # and at the boundary 25 (before C) this round has had its express slot, so S2 waits
    # for the next round: express slot 35-40 before A.  (The former reading opened a
    # second express slot at 25: S2 ran 25-30.)  Then A 40-50, B 50-60, C 60-70, and the
    # third round ends them: A 80, B 90, C 100.
    jobs = [(1, 0, 30, 30, 2), (2, 0, 30, 30, 2), (3, 0, 30, 30, 2), (4, 1, 5, 5, 2),
            (5, 12, 5, 5, 2)]
    times, result = simulate(jobs, 2, strategy=3, slot=10, short=20, long=100)
    assert times == {1: (0, 80), 2: (15, 90), 3: (25, 100), 4: (10, 15), 5: (35, 40)}
    assert result.stats["express_slots"] == 2
    # four slots only during the express slots (10-15, 35-40), three otherwise (the
    # former reading kept the count raised to the end of the round): mean
    # (3·10 + 4·5 + 3·20 + 4·5 + 3·60) / 100 = 3.1
    trace = result.timesharing
    assert trace.slots_time.tolist() == [0, 10, 15, 35, 40, 100]
    assert trace.slots_count.tolist() == [3, 4, 3, 4, 3, 0]
    assert compute_metrics(result)["gang_slots_mean"] == pytest.approx(3.1)


def test_strategy_2_keeps_a_second_long_job_off_a_busy_processor():
    # Long means > 20 s.  L1 (long, machine-wide) in row 0; L2 (long) would share
    # processor 0 in row 1.  Strategy 1 lets it: L1 0-50, L2 10-60, M 10-20.
    jobs = [(1, 0, 30, 30, 2), (2, 0, 30, 30, 1), (3, 0, 10, 10, 1)]
    times, _ = simulate(jobs, 2, strategy=1, slot=10, short=5, long=20, switchable=False)
    assert times == {1: (0, 50), 2: (10, 60), 3: (10, 20)}
    # Strategy 2: L2 waits; M (medium) backfills into row 1: L1 0-10, M 10-20, then L1
    # alone 20-40; L2 starts when L1 has left, 40-70.
    times, result = simulate(jobs, 2, strategy=2, slot=10, short=5, long=20,
                             switchable=False)
    assert times == {1: (0, 40), 2: (40, 70), 3: (10, 20)}
    assert result.stats["backfilled"] == 1


REPACK_JOBS = [(1, 0, 100, 100, 2), (2, 0, 5, 5, 2), (3, 0, 5, 5, 2), (4, 0, 100, 100, 2),
               (5, 1, 10, 10, 4)]


def test_repacking_merges_idle_fragments_so_a_wide_job_fits():
    # Row 0: A{0,1} B{2,3}; row 1: C{0,1} D{2,3}; B and C end at 5 and 15.  At 20 D moves
    # to row 0 (its processors are free there), row 1 is empty and removed, and E
    # (4 wide) opens a new row: E 30-40; A and D share row 0 to the end at 120.
    times, result = simulate(REPACK_JOBS, 4, slot=10, slots=2, switchable=False)
    assert times == {1: (0, 120), 2: (0, 5), 3: (10, 15), 4: (10, 120), 5: (30, 40)}
    assert result.stats["repack_moves"] == 1


def test_without_repacking_the_wide_job_waits_for_a_row():
    # First fit without moves: rows 0 (A) and 1 (D) each have 2 free processors, the
    # limit is 2 rows, so E waits until A (190) and D (200) are gone: E 200-210.
    times, result = simulate(REPACK_JOBS, 4, slot=10, slots=2, switchable=False,
                             packing="first-fit")
    assert times == {1: (0, 190), 2: (0, 5), 3: (10, 15), 4: (10, 200), 5: (200, 210)}
    assert result.stats["repack_moves"] == 0


def test_a_job_runs_as_a_guest_where_its_processors_are_free():
    # Row 0: A{0,1} X{2}; row 1: B{0,1} C{2}.  X ends at 5; from 20 C also runs in row 0.
    # Rounds of 20 s give C 20 s, A and B 10 s each: C ends at 110, then A 190, B 200.
    jobs = [(1, 0, 100, 100, 2), (2, 0, 5, 5, 1), (3, 0, 100, 100, 2), (4, 0, 100, 100, 1)]
    times, result = simulate(jobs, 3, slot=10, packing="first-fit")
    assert times == {1: (0, 190), 2: (0, 5), 3: (10, 200), 4: (10, 110)}
    assert result.timesharing.service.tolist() == [100, 5, 100, 100]


def test_without_guests_the_free_processor_stays_idle():
    jobs = [(1, 0, 100, 100, 2), (2, 0, 5, 5, 1), (3, 0, 100, 100, 2), (4, 0, 100, 100, 1)]
    times, _ = simulate(jobs, 3, slot=10, packing="first-fit", switchable=False)
    assert times == {1: (0, 190), 2: (0, 5), 3: (10, 200), 4: (10, 200)}


def test_a_job_is_killed_when_its_service_reaches_its_estimate():
    # runtime 50, estimate 15: served 0-10 and 20-25 (B holds 10-20), killed at 25.
    times, result = simulate([(1, 0, 50, 15, 2), (2, 0, 30, 30, 2)], 2, slot=10)
    assert times[1] == (0, 25)
    assert result.status_names()[0] == "killed"
    assert result.timesharing.service.tolist() == [15, 30]


def test_the_slot_limit_makes_jobs_wait_and_backfilling_lets_small_ones_by():
    # Limit 1 row on 2 processors: A (1 wide) runs; W (2 wide) cannot; S (1 wide) fits
    # beside A and is backfilled at 0; W starts when both have left (at 10).
    jobs = [(1, 0, 10, 10, 1), (2, 0, 10, 10, 2), (3, 0, 5, 5, 1)]
    times, _ = simulate(jobs, 2, slot=10, slots=1)
    assert times == {1: (0, 10), 2: (10, 20), 3: (0, 5)}
    # backfill none: S waits behind W: W 10-20, S 20-25
    times, _ = simulate(jobs, 2, slot=10, slots=1, backfill="none")
    assert times == {1: (0, 10), 2: (10, 20), 3: (20, 25)}


@pytest.mark.parametrize("length, backfill, expected", [
    # S (1 wide, 200 s) fits beside A: first fit places it at 10, W waits for the row to
    # empty: S 10-210, W 210-220.
    (200, "first-fit", {1: (0, 100), 2: (210, 220), 3: (10, 210)}),
    # Reservation: at 10 W's reservation is A's predicted end, 10 + (100 - 10) x 1 row =
    # 100; S would end at 10 + 200 = 210 and keep the row busy after 100, so it waits:
    # W 100-110, then S 110-310.
    (200, "reservation", {1: (0, 100), 2: (100, 110), 3: (110, 310)}),
    # A 10 s S ends at 20, before W's reservation: it is backfilled, 10-20.
    (10, "reservation", {1: (0, 100), 2: (100, 110), 3: (10, 20)}),
    # Strict queue: S waits behind W whatever its length.
    (10, "none", {1: (0, 100), 2: (100, 110), 3: (110, 120)}),
])
def test_backfilling_under_the_slot_limit_with_a_reservation_for_the_head(length, backfill,
                                                                         expected):
    # One row on 2 processors, slot 10: A (1 wide, 100 s) at 0; W (2 wide, 10 s) at 1 and
    # S (1 wide) at 2 are placed at the round boundary 10; W fits in no row.
    jobs = [(1, 0, 100, 100, 1), (2, 1, 10, 10, 2), (3, 2, length, length, 1)]
    times, _ = simulate(jobs, 2, slot=10, slots=1, backfill=backfill)
    assert times == expected


def test_the_reservation_counts_the_rows_a_job_shares():
    # Limit 2 rows on 2 processors, slot 10: row 0 A{0} (100 s), row 1 B{0,1} (300 s).
    # W (2 wide) and S (1 wide) arrive at 15 and are seen at the boundary 20, where A
    # and B have had 10 s each.  W fits in no row: its reservation is A's predicted end,
    # 20 + 90 x 2 rows = 200 (row 0 then empties).  S fits beside A in row 0; its
    # predicted end is 20 + length x 2 rows.  A 30 s S ends by 80: backfilled at 20.  A
    # 100 s S would end at 220 and hold row 0 after 200 (counted at one row, 120, it
    # would have passed): it waits, and W starts first (210, after B's slot 200-210).
    base = [(1, 0, 100, 100, 1), (2, 0, 300, 300, 2), (3, 15, 10, 10, 2)]
    times, _ = simulate(base + [(4, 15, 30, 30, 1)], 2, slot=10, slots=2,
                        backfill="reservation", switchable=False)
    assert times[4][0] == 20
    times, _ = simulate(base + [(4, 15, 100, 100, 1)], 2, slot=10, slots=2,
                        backfill="reservation", switchable=False)
    assert times[3][0] == 210
    assert times[4][0] > times[3][0]
    times, _ = simulate(base + [(4, 15, 100, 100, 1)], 2, slot=10, slots=2,
                        switchable=False)
    assert times[4][0] == 20 and times[3][0] > 210


def test_idle_machine_starts_a_new_job_at_its_submit_time():
    times, result = simulate([(1, 0, 10, 10, 1), (2, 100, 7, 7, 1)], 1, slot=3)
    assert times == {1: (0, 10), 2: (100, 107)}
    assert result.timesharing.slots_count.tolist() == [1, 0, 1, 0]
    assert result.timesharing.slots_time.tolist() == [0, 10, 100, 107]


@pytest.mark.parametrize("runtime", [10_000_000])
def test_long_runs_cost_jumps_not_rounds(runtime):
    # two jobs in two rows for ten million seconds at a 1 s slot: five million rounds
    jobs = [(1, 0, runtime, runtime, 1), (2, 0, runtime, runtime, 1), (3, 0, 5, 5, 1)]
    times, result = simulate(jobs, 1, slot=1)
    # rounds of three 1 s slots until job 3 ends at 15, then of two
    assert times == {1: (0, 2 * runtime + 4), 2: (1, 2 * runtime + 5), 3: (2, 15)}
    assert result.stats["rounds"] > runtime // 2
    assert result.meta["wall_time_s"] < 1.0


def test_jobs_placed_by_a_pass_start_in_their_first_slot_of_a_jumped_round():
    # 3 processors, slot 10, 1 s per switch.  At 0 the pass puts A (procs 0-1) in row 0,
    # B (procs 0-1) in row 1, C (proc 2) in row 0, and C is a guest in row 1: a round is
    # 1 + 10 + 1 + 10 = 22 s and C gets 20 s of it.  The engine jumps at once over the
    # 4 rounds before C's last (no round is served first): A and C start at 1 (row 0's
    # service), B at 12 (row 1's).  C ends with row 1's slot of round 4, at 110.  After
    # its pass A and B have 950 s left: a jump of 94 rounds to 2178, then A 2179-2189,
    # B 2190-2200.  100 rounds in all.
    jobs = [(1, 0, 1000, 1000, 2), (2, 0, 1000, 1000, 2), (3, 0, 100, 100, 1)]
    times, result = simulate(jobs, 3, slot=10, context_switch=1)
    assert times == {1: (1, 2189), 2: (12, 2200), 3: (1, 110)}
    assert result.stats["rounds"] == 100
    assert result.timesharing.service.tolist() == [1000, 1000, 100]


def test_a_switch_into_a_single_row_is_served_before_the_jump():
    # One row (A on procs 0-1), 3 s per switch: the first slot pays the switch (no
    # repeated round does), so it is served slot by slot: service 3-13; the jump then
    # takes 8 rounds of 10 s (13-93) and the last slot ends A at 103.
    times, result = simulate([(1, 0, 100, 100, 2)], 2, slot=10, context_switch=3)
    assert times == {1: (3, 103)}
    assert result.stats["rounds"] == 10
