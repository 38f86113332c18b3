"""The platform model: hand-checked arrays, eligibility, eq. 3.9, the default platform."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import InputError
from schedlab.platform import Cluster, Licence, Machine, Platform, read_platform, time_on_machine

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "platforms" / "two-sites.toml"


def small() -> Platform:
    """Two clusters: a (m1 8 CPUs @400 with feature 'matlab', m2 4 @200), b (m3 16 @100)."""
    a = Cluster("a", (Machine("m1", 8, 400, frozenset({"matlab"})), Machine("m2", 4, 200)),
                (Licence("fluent", 1, ("m2",)), Licence("abaqus", 2, ("m1", "m2"))))
    b = Cluster("b", (Machine("m3", 16, 100),), (Licence("fluent", 3, ("m3",)),))
    return Platform((a, b), name="small")


def test_arrays_of_a_small_platform():
    p = small()
    assert p.licence_names == ("abaqus", "fluent", "matlab")
    assert p.cpus.tolist() == [8, 4, 16]
    assert p.rating.tolist() == [400, 200, 100]
    assert p.cluster_of.tolist() == [0, 0, 1]
    assert p.floating.astype(int).tolist() == [[1, 1, 0], [0, 1, 1], [0, 0, 0]]
    assert p.feature.astype(int).tolist() == [[0, 0, 0], [0, 0, 0], [1, 0, 0]]
    assert p.usable.astype(int).tolist() == [[1, 1, 0], [0, 1, 1], [1, 0, 0]]
    assert p.copies.tolist() == [[2, 1, 0], [0, 3, 0]]
    assert (p.total_cpus, p.max_cpus) == (28, 16)
    with pytest.raises(ValueError):
        p.cpus[0] = 1  # read-only


def test_eligible_machines_need_cpus_and_every_licence():
    p = small()
    abaqus, fluent, matlab = p.licence_index(["abaqus", "fluent", "matlab"])
    assert p.eligible(4).tolist() == [True, True, True]
    assert p.eligible(5).tolist() == [True, False, True]
    assert p.eligible(1, [fluent]).tolist() == [False, True, True]
    assert p.eligible(1, [abaqus, fluent]).tolist() == [False, True, False]
    assert p.eligible(1, [abaqus, matlab]).tolist() == [True, False, False]
    assert p.eligible(8, [fluent, matlab]).tolist() == [False, False, False]


def test_unknown_licence_is_named():
    with pytest.raises(InputError, match="no cluster of platform 'small' has licence 'ansys'"):
        small().licence_index(["fluent", "ansys"])


def test_time_on_machine_is_eq_3_9_rounded_up():
    # 1000 s measured at rating 300 on a machine rated 400: 750 s exactly.
    assert time_on_machine(1000, 300, 400) == 750
    # 1000 x 100 / 300 = 333.33... -> 334 (never earlier than the exact time).
    assert time_on_machine(1000, 100, 300) == 334
    assert time_on_machine(1, 100, 500) == 1
    assert time_on_machine(0, 100, 500) == 0
    assert time_on_machine(7, 3, 3) == 7
    p = small()
    assert time_on_machine(1000, 300, p.rating).tolist() == [750, 1500, 3000]
    seconds = np.array([1000, 10, 1])
    assert time_on_machine(seconds, 100, 300).tolist() == [334, 4, 1]


def test_single_machine_is_the_default_homogeneous_platform():
    p = Platform.single_machine(128)
    assert p.cpus.tolist() == [128] and p.rating.tolist() == [1]
    assert p.licence_names == () and p.usable.shape == (0, 1)
    assert time_on_machine(3600, 1, p.rating[0]) == 3600


@pytest.mark.parametrize("build, field, message", [
    (lambda: Machine("m", 0), "cpus", "positive integer"),
    (lambda: Machine("m", 2, 0), "rating", "positive integer"),
    (lambda: Machine("m", 2.5), "cpus", "positive integer"),
    (lambda: Machine("m", 2, 1, frozenset({"a b"})), "features", "without blanks"),
    (lambda: Licence("x", 0, ("m",)), "copies", "positive integer"),
    (lambda: Licence("x", 1, ()), "machines", "can be activated on no machine"),
    (lambda: Licence("x", 1, ("m", "m")), "machines", "names machine 'm' twice"),
    (lambda: Cluster("c", ()), "machines", "has no machines"),
    (lambda: Cluster("c", (Machine("m", 1), Machine("m", 2))), "machines[1].name", "two machines"),
    (lambda: Cluster("c", (Machine("m", 1),), (Licence("x", 1, ("n",)),)), "licences[0].machines",
     "names machine 'n', which is not in cluster 'c'"),
    (lambda: Cluster("c", (Machine("m", 1, 1, frozenset({"x"})),), (Licence("x", 1, ("m",)),)),
     "machines[0].features", "both a floating licence"),
    (lambda: Platform(()), "clusters", "no clusters"),
    (lambda: Platform((Cluster("c", (Machine("m", 1),)), Cluster("d", (Machine("m", 1),)))),
     "clusters[1].machines[0].name", "unique in the platform"),
])
def test_bad_models_are_refused_with_their_field(build, field, message):
    with pytest.raises(InputError, match=message) as err:
        build()
    assert err.value.field == field


def test_the_shipped_example_reads():
    p = read_platform(EXAMPLE)
    assert p.name == "two-sites"
    assert [c.name for c in p.clusters] == ["pisa", "venezia"]
    assert p.licence_names == ("fluent", "gaussian", "matlab")
    # gaussian: machines = "all" in pisa
    assert p.floating[1].tolist() == [True, True, True, False, False]
    assert p.copies.tolist() == [[2, 1, 0], [1, 0, 0]]


@given(st.integers(0, 10**7), st.integers(1, 10**4), st.integers(1, 10**4))
def test_time_on_machine_is_the_smallest_integer_not_below_the_exact_time(t, job, machine):
    scaled = time_on_machine(t, job, machine)
    assert scaled * machine >= t * job > (scaled - 1) * machine
    assert time_on_machine(np.array([t]), job, np.array([machine])).tolist() == [scaled]
