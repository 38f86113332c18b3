"""Platforms drawn from the thesis' ranges: determinism, ranges, presets."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import InputError
from schedlab.platform.generator import (
    PRESETS,
    PlatformSettings,
    generate_platform,
    licence_names,
    preset,
)


def test_same_seed_same_platform_other_seed_other_platform():
    settings = PRESETS["thesis-4.1"]
    a, b = generate_platform(settings, seed=3), generate_platform(settings, seed=3)
    assert a == b and (a.usable == b.usable).all() and (a.copies == b.copies).all()
    assert generate_platform(settings, seed=4) != a


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_respects_its_ranges(name):
    settings = PRESETS[name]
    p = generate_platform(settings, seed=1)
    assert [len(c.machines) for c in p.clusters] == list(settings.clusters)
    assert settings.cpus[0] <= p.cpus.min() and p.cpus.max() <= settings.cpus[1]
    assert settings.rating[0] <= p.rating.min() and p.rating.max() <= settings.rating[1]
    assert p.licence_names == licence_names(settings.licences)
    for _c, cluster in enumerate(p.clusters):
        for lic in cluster.licences:
            suitable = len(lic.machines)
            assert suitable >= 1
            # copies = ratio x suitable machines, rounded half up, at least 1
            low = max(1, int(np.floor(settings.ratio[0] * suitable + 0.5)))
            high = max(1, int(np.floor(settings.ratio[1] * suitable + 0.5)))
            assert low <= lic.copies <= high


def test_thesis_4_3_grid_has_four_clusters_and_full_suitability():
    p = generate_platform(PRESETS["thesis-4.3"], seed=0)
    assert [len(c.machines) for c in p.clusters] == [120, 60, 30, 15]
    assert len(p.machines) == 225 and p.floating.all()        # Table 6: suitability 100 %
    assert p.copies.shape == (4, 20)


def test_suitability_is_near_its_probability():
    p = generate_platform(preset("thesis-4.1", clusters=(2000,), licences=5), seed=2)
    share = p.floating.mean()
    assert 0.88 < share < 0.92                                  # Table 1: 90 %


def test_licence_names_are_numbered():
    assert licence_names(3) == ("lic-01", "lic-02", "lic-03")
    assert licence_names(100)[0] == "lic-001"


@pytest.mark.parametrize("changes, field", [
    ({"clusters": ()}, "clusters"), ({"clusters": (0,)}, "clusters"),
    ({"cpus": (0, 4)}, "cpus"), ({"cpus": (8, 4)}, "cpus"), ({"rating": (1.5, 3)}, "rating"),
    ({"licences": -1}, "licences"), ({"suitability": 0.0}, "suitability"),
    ({"ratio": (0.5, 1.2)}, "ratio"),
])
def test_bad_settings_name_their_field(changes, field):
    with pytest.raises(InputError) as err:
        PlatformSettings(**changes)
    assert err.value.field == field


def test_unknown_preset():
    with pytest.raises(InputError, match="unknown platform preset 'thesis-9'"):
        preset("thesis-9")
