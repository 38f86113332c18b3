"""The traces catalog and ``schedlab traces list|fetch`` (docs/how-to/traces.md).

Downloads are served by a real HTTP server on 127.0.0.1 (``http.server`` in a
thread, port 0) and a test catalog pointing at it; the shipped catalog is
checked against the real traces (tests/real_traces.py) where they exist.
"""

from __future__ import annotations

import gzip
import hashlib
import http.server
import socket
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import schedlab
from real_traces import trace_path
from schedlab.cli.app import app
from schedlab.errors import InputError
from schedlab.workload import catalog
from schedlab.workload.catalog import (
    Trace,
    cache_state,
    cached_trace,
    fetch,
    find_trace,
    load_catalog,
)

WORKLOADS = trace_path(".")
ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload/"

# A tiny SWF trace (2 jobs, 4 processors), gzip-compressed with a fixed mtime
# so that its checksum is fixed.
SWF_TEXT = b"; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 0 -1 -1 -1\n" \
           b"2 5 -1 30 4 -1 -1 4 40 -1 1 1 1 -1 0 -1 -1 -1\n"
SWF_GZ = gzip.compress(SWF_TEXT, mtime=0)
SWF_SHA = hashlib.sha256(SWF_GZ).hexdigest()
OTHER_SHA = "0" * 64


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``/good.swf.gz`` whole, ``/short.swf.gz`` cut in half after announcing the
    full length, and 404 for anything else; counts requests."""

    def do_GET(self) -> None:
        self.server.requests += 1
        if self.path in ("/good.swf.gz", "/unknown.swf.gz", "/other.swf.gz"):
            self._send(SWF_GZ, len(SWF_GZ))
        elif self.path == "/short.swf.gz":
            self._send(SWF_GZ[: len(SWF_GZ) // 2], len(SWF_GZ))
            self.close_connection = True
        else:
            self.send_error(404, "Not Found")

    def _send(self, body: bytes, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/gzip")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server():
    """A loopback HTTP server; yields its base URL.  ``server.requests`` counts GETs."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.requests = 0
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _url(httpd, path: str) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/{path}"


def _closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _trace(url: str, sha256: str = SWF_SHA, file: str = "good.swf.gz") -> Trace:
    return Trace(name="Test", file=file, url=url, machine="test", processors=4, jobs=2,
                 sha256=sha256, note="")


def _catalog_file(path: Path, entries: list[dict]) -> Path:
    """Write a catalog TOML file with the given [[trace]] tables."""
    blocks = []
    for entry in entries:
        lines = ["[[trace]]"]
        for key, value in entry.items():
            lines.append(f"{key} = {value!r}" if isinstance(value, int)
                         else f'{key} = "{value}"')
        blocks.append("\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n")
    return path


def _entry(url: str, *, name: str = "Test", file: str = "good.swf.gz",
           sha256: str = SWF_SHA) -> dict:
    return {"name": name, "file": file, "url": url, "machine": "loopback", "processors": 4,
            "jobs": 2, "sha256": sha256, "note": ""}


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# --------------------------------------------------------------------------- shipped catalog


def test_shipped_catalog_lists_the_archive_traces_with_archive_urls():
    traces = load_catalog()
    assert {"KTH-SP2", "NASA-iPSC", "SDSC-BLUE", "Lublin-256", "CTC-SP2", "SDSC-SP2",
            "SDSC-Par95", "SDSC-Par96", "LANL-CM5", "HPC2N", "ANL-Intrepid"} <= set(traces)
    kth = traces["KTH-SP2"]
    assert kth.url == ARCHIVE + "l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz"
    assert (kth.processors, kth.jobs) == (100, 27992)
    for trace in traces.values():
        if trace.url:
            assert trace.url.startswith(ARCHIVE) and trace.url.endswith("/" + trace.file)


@pytest.mark.parametrize("name", ["KTH-SP2", "NASA-iPSC", "SDSC-BLUE", "Lublin-256"])
def test_shipped_checksums_and_job_counts_match_the_shared_traces(name):
    trace = load_catalog()[name]
    path = WORKLOADS / trace.file
    if not path.exists():
        pytest.skip(f"{path} is not available")
    assert catalog.file_sha256(path) == trace.sha256
    records = [line for line in gzip.decompress(path.read_bytes()).splitlines()
               if line.strip() and not line.lstrip().startswith(b";")]
    assert len(records) == trace.jobs


def test_find_trace_ignores_case_and_names_the_choices_otherwise():
    assert find_trace("kth-sp2").name == "KTH-SP2"
    with pytest.raises(InputError, match=r"no trace called 'KTH' .*KTH-SP2"):
        find_trace("KTH")


# --------------------------------------------------------------------------- catalog errors


@pytest.mark.parametrize("change, field, message", [
    ({"sha256": "abc"}, "trace[0].sha256", "64 lower-case hex digits"),
    ({"processors": "many"}, "trace[0].processors", "expected an integer"),
    ({"file": "../evil.gz"}, "trace[0].file", "plain file name"),
    ({"colour": "red"}, "trace[0].colour", "unknown key"),
])
def test_a_bad_catalog_entry_is_named_by_its_key_path(tmp_path, change, field, message):
    entry = {**_entry("http://127.0.0.1/x"), **change}
    path = _catalog_file(tmp_path / "cat.toml", [entry])
    with pytest.raises(InputError, match=message) as caught:
        load_catalog(path)
    assert caught.value.field == field and caught.value.file == str(path)


def test_a_missing_key_and_a_duplicate_name_are_rejected(tmp_path):
    entry = _entry("http://127.0.0.1/x")
    del entry["jobs"]
    with pytest.raises(InputError, match="missing key") as caught:
        load_catalog(_catalog_file(tmp_path / "a.toml", [entry]))
    assert caught.value.field == "trace[0].jobs"
    twice = [_entry("http://x/a"), _entry("http://x/b", name="TEST")]
    with pytest.raises(InputError, match="appears twice"):
        load_catalog(_catalog_file(tmp_path / "b.toml", twice))


def test_a_catalog_that_is_not_toml_is_rejected(tmp_path):
    path = tmp_path / "cat.toml"
    path.write_text("[[trace]\nname = 'x'\n")
    with pytest.raises(InputError, match="not a valid TOML file"):
        load_catalog(path)


# --------------------------------------------------------------------------- fetch


def test_fetch_downloads_verifies_and_renames_into_the_cache(server, tmp_path):
    fetched = fetch(_trace(_url(server, "good.swf.gz")), tmp_path / "cache")
    assert fetched.downloaded and fetched.verified and fetched.sha256 == SWF_SHA
    assert fetched.path == tmp_path / "cache" / "good.swf.gz"
    assert fetched.path.read_bytes() == SWF_GZ
    assert _leftovers(tmp_path / "cache") == ["good.swf.gz"]
    assert fetched.path.stat().st_mode & 0o777 == 0o644


def test_a_cached_verified_trace_is_not_downloaded_again(server, tmp_path):
    trace = _trace(_url(server, "good.swf.gz"))
    fetch(trace, tmp_path)
    server.shutdown()   # no network from here on
    again = fetch(trace, tmp_path)
    assert not again.downloaded and again.verified and server.requests == 1


def test_force_downloads_again_and_a_corrupt_cached_file_is_replaced(server, tmp_path):
    trace = _trace(_url(server, "good.swf.gz"))
    fetch(trace, tmp_path)
    assert fetch(trace, tmp_path, force=True).downloaded and server.requests == 2
    (tmp_path / "good.swf.gz").write_bytes(b"garbage")
    assert cache_state(trace, tmp_path)[0] == "corrupt"
    repaired = fetch(trace, tmp_path)
    assert repaired.downloaded and (tmp_path / "good.swf.gz").read_bytes() == SWF_GZ


def test_a_checksum_mismatch_keeps_nothing(server, tmp_path):
    url = _url(server, "other.swf.gz")
    with pytest.raises(InputError) as caught:
        fetch(_trace(url, sha256=OTHER_SHA, file="other.swf.gz"), tmp_path)
    assert str(caught.value) == (f"checksum mismatch for {url}: expected sha256 {OTHER_SHA}, "
                                 f"got {SWF_SHA}; the download was not kept")
    assert _leftovers(tmp_path) == []


def test_an_unknown_checksum_keeps_the_file_and_reports_its_checksum(server, tmp_path):
    fetched = fetch(_trace(_url(server, "unknown.swf.gz"), sha256="", file="u.swf.gz"),
                    tmp_path)
    assert fetched.downloaded and not fetched.verified and fetched.sha256 == SWF_SHA
    assert cache_state(fetched.trace, tmp_path) == ("unverified", SWF_SHA)


def test_connection_refused_is_one_clear_line_with_the_manual_way_out(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/good.swf.gz"
    with pytest.raises(InputError) as caught:
        fetch(_trace(url), tmp_path / "cache")
    assert str(caught.value) == (f"cannot download {url}: Connection refused; download it "
                                 f"by hand and save it as {tmp_path / 'cache' / 'good.swf.gz'}")
    assert _leftovers(tmp_path / "cache") == []


def test_http_404_is_reported_with_the_url(server, tmp_path):
    url = _url(server, "missing.swf.gz")
    with pytest.raises(InputError, match=f"cannot download {url}: HTTP 404 Not Found; "):
        fetch(_trace(url), tmp_path)
    assert _leftovers(tmp_path) == []


def test_a_download_cut_short_leaves_no_file_in_the_cache(server, tmp_path):
    url = _url(server, "short.swf.gz")
    missing = len(SWF_GZ) - len(SWF_GZ) // 2
    with pytest.raises(InputError, match=f"cannot download {url}: the connection closed early "
                                         f"\\({missing} bytes missing\\)"):
        fetch(_trace(url, file="short.swf.gz"), tmp_path)
    assert _leftovers(tmp_path) == []


def test_progress_reports_bytes_against_the_announced_size(server, tmp_path):
    seen: list[tuple[int, int]] = []
    fetch(_trace(_url(server, "good.swf.gz")), tmp_path,
          progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(SWF_GZ), len(SWF_GZ))


def test_a_trace_without_download_address_says_where_to_put_a_copy(tmp_path):
    trace = Trace(name="Lublin-256", file="l.swf.gz", url="", machine="m", processors=1,
                  jobs=1, sha256="", note="synthetic")
    with pytest.raises(InputError, match=f"no download address .*save your copy as "
                                         f"{tmp_path / 'l.swf.gz'}"):
        fetch(trace, tmp_path)


# --------------------------------------------------------------------------- load by name


def test_load_workload_reads_a_cached_catalog_trace_by_name(server, tmp_path, monkeypatch):
    path = _catalog_file(tmp_path / "cat.toml", [_entry(_url(server, "good.swf.gz"))])
    monkeypatch.setattr(catalog, "CATALOG_PATH", path)
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path / "cache"))
    with pytest.raises(InputError, match=r"trace Test is not in the cache .*"
                                         r"run `schedlab traces fetch Test` first"):
        schedlab.load_workload("test")
    fetch(find_trace("Test"), None)
    assert cached_trace("TEST") == tmp_path / "cache" / "good.swf.gz"
    workload = schedlab.load_workload("test")
    assert [(j.id, j.submit, j.width, j.runtime) for j in workload] == [(1, 0, 2, 10),
                                                                        (2, 5, 4, 30)]
    (tmp_path / "cache" / "good.swf.gz").write_bytes(SWF_GZ + b"x")
    with pytest.raises(InputError, match="fails its checksum; run `schedlab traces fetch "
                                         "Test --force`"):
        schedlab.load_workload("Test")


def test_a_name_that_is_nothing_known_still_fails_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path))
    with pytest.raises(InputError, match=r"no such file, not a built-in model .* and not a "
                                         "trace of `schedlab traces list`"):
        schedlab.load_workload("no-such-trace")


def test_the_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path / "c"))
    assert catalog.default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv(catalog.CACHE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert catalog.default_cache_dir() == tmp_path / ".cache" / "schedlab" / "traces"


# --------------------------------------------------------------------------- CLI


def test_cli_fetch_then_list_shows_the_cached_trace(server, tmp_path):
    cat = _catalog_file(tmp_path / "cat.toml", [
        _entry(_url(server, "good.swf.gz")),
        _entry(_url(server, "unknown.swf.gz"), name="Open", file="u.swf.gz", sha256="")])
    runner = CliRunner()
    args = ["--catalog", str(cat), "--cache-dir", str(tmp_path / "cache")]
    first = runner.invoke(app, ["traces", "fetch", "test", *args])
    assert first.exit_code == 0, first.output
    assert f"Test: downloaded {_url(server, 'good.swf.gz')} to" in first.output
    assert f"sha256 verified: {SWF_SHA}" in first.output
    second = runner.invoke(app, ["traces", "fetch", "Test", *args])
    assert "Test: already cached:" in second.output and server.requests == 1
    unknown = runner.invoke(app, ["traces", "fetch", "Open", *args])
    assert unknown.exit_code == 0
    assert (f"checksum unknown: the catalog has no sha256 for Open; this file's sha256 is "
            f"{SWF_SHA}") in " ".join(unknown.output.split())
    listing = runner.invoke(app, ["traces", "list", *args], env={"COLUMNS": "120"})
    assert listing.exit_code == 0
    rows = [line for line in listing.output.splitlines() if "loopback" in line]
    assert "known" in rows[0] and "yes" in rows[0]
    assert "unknown" in rows[1] and "yes (unverified)" in rows[1]


def test_cli_fetch_offline_exits_2_with_one_line(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/good.swf.gz"
    cat = _catalog_file(tmp_path / "cat.toml", [_entry(url)])
    result = CliRunner().invoke(app, ["traces", "fetch", "Test", "--catalog", str(cat),
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 2
    assert result.output.startswith(f"schedlab: error: cannot download {url}: "
                                    f"Connection refused; download it by hand")
    assert len(result.output.strip().splitlines()) == 1


def test_cli_fetch_of_an_unknown_name_exits_2(tmp_path):
    result = CliRunner().invoke(app, ["traces", "fetch", "nope", "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2 and "no trace called 'nope'" in result.output
