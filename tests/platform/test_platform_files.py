"""Platform files: every bad input names file, line and field; write/read round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedlab.errors import InputError
from schedlab.platform import read_platform, write_platform
from schedlab.platform.generator import generate_platform, preset

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "examples" / "platforms" / "two-sites.toml").read_text()


def error_of(tmp_path: Path, text: str) -> InputError:
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_platform(path)
    assert err.value.file == str(path)
    return err.value


def line_of(text: str, needle: str, occurrence: int = 0) -> int:
    """1-based line of the occurrence-th line containing needle."""
    hits = [k + 1 for k, line in enumerate(text.splitlines()) if needle in line]
    return hits[occurrence]


def test_machine_with_zero_cpus(tmp_path):
    text = EXAMPLE.replace("cpus = 4\nrating = 250", "cpus = 0\nrating = 250", 1)
    err = error_of(tmp_path, text)
    assert err.field == "clusters[0].machines[1].cpus"
    assert err.line == line_of(text, "cpus = 0")
    assert "machine 'pisa-2': expected a positive integer (>= 1), got 0" in str(err)


def test_licence_suitable_on_no_machine(tmp_path):
    text = EXAMPLE.replace('machines = ["venezia-1"]', "machines = []")
    err = error_of(tmp_path, text)
    assert err.field == "clusters[1].licences[0].machines"
    assert err.line == line_of(text, "machines = []")
    assert "licence 'fluent' can be activated on no machine" in str(err)


def test_licence_on_a_machine_of_another_cluster(tmp_path):
    text = EXAMPLE.replace('machines = ["pisa-1", "pisa-2"]', 'machines = ["pisa-1", "venezia-1"]')
    err = error_of(tmp_path, text)
    assert err.field == "clusters[0].licences[0].machines"
    assert err.line == line_of(text, 'machines = ["pisa-1", "venezia-1"]')
    assert "names machine 'venezia-1', which is not in cluster 'pisa'" in str(err)


def test_unknown_key_and_missing_key(tmp_path):
    text = EXAMPLE.replace("rating = 100", "speed = 100")
    err = error_of(tmp_path, text)
    assert (err.field, err.line) == ("clusters[1].machines[1].speed", line_of(text, "speed"))
    text = EXAMPLE.replace("copies = 1\nmachines = \"all\"", "machines = \"all\"")
    err = error_of(tmp_path, text)
    assert err.field == "clusters[0].licences[1].copies" and "missing" in str(err)
    assert err.line == line_of(text, "[[clusters.licences]]", 1)


def test_inline_tables_name_the_line_of_their_key(tmp_path):
    text = 'name = "x"\n[[clusters]]\nname = "a"\nmachines = [{name = "m", cpus = 0}]\n'
    err = error_of(tmp_path, text)
    assert (err.field, err.line) == ("clusters[0].machines[0].cpus", 4)


def test_duplicate_machine_names_across_clusters(tmp_path):
    text = EXAMPLE.replace('name = "venezia-2"', 'name = "pisa-3"')
    err = error_of(tmp_path, text)
    assert err.field == "clusters[1].machines[1].name"
    assert err.line == line_of(text, 'name = "pisa-3"', 1)


def test_syntax_error_names_its_line(tmp_path):
    err = error_of(tmp_path, "[[clusters]]\nname = \n")
    assert err.line == 2 and "not valid TOML" in str(err)


def test_structure_errors(tmp_path):
    assert error_of(tmp_path, 'name = "x"\n').field == "clusters"
    assert error_of(tmp_path, '[[clusters]]\nname = "a"\n').field == "clusters[0].machines"
    err = error_of(tmp_path, '[[clusters]]\n[[clusters.machines]]\nname = "m"\ncpus = 2\n'
                             'features = "matlab"\n')
    assert err.field == "clusters[0].machines[0].features" and err.line == 5


def test_missing_file():
    with pytest.raises(InputError, match="no such platform file"):
        read_platform("/nonexistent/p.toml")


def test_write_then_read_gives_the_same_platform(tmp_path):
    platform = generate_platform(preset("thesis-4.3", clusters=(5, 3)), seed=4)
    path = tmp_path / "g.toml"
    write_platform(platform, path, comment="made by a test\nsecond line")
    again = read_platform(path)
    assert again == platform
    assert (again.usable == platform.usable).all() and (again.copies == platform.copies).all()
    assert path.read_text().startswith("# made by a test\n# second line\n")


def test_example_round_trips(tmp_path):
    platform = read_platform(ROOT / "examples" / "platforms" / "two-sites.toml")
    write_platform(platform, tmp_path / "e.toml")
    assert read_platform(tmp_path / "e.toml") == platform
