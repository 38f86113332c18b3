"""``schedlab precompile``: compile the hot loops now, so that no simulation waits for them."""

from __future__ import annotations

from typing import Annotated

import typer

from schedlab.cli.consoles import console
from schedlab.cli.conventions import POLICY_PANEL
from schedlab.errors import InputError


def precompile(
    policies: Annotated[str | None, typer.Option(
        "--policies", help="Comma-separated policies to compile for (default: every policy "
        "with compiled loops).", rich_help_panel=POLICY_PANEL)] = None,
) -> None:
    """Compile the hot loops (numba) now: of plain FCFS, conservative backfilling, planning,
    dynP, QoPS, MSB, MRT, the slurm policy, runs with failures, the knn predictor, the grid
    policies and the trace reader and writer, ahead of time into an extension module when
    every policy is chosen (the default), so that a run loads them without numba; nothing
    to do when that extension is current."""
    from schedlab.api import COMPILED_POLICIES
    from schedlab.api import precompile as compile_policies
    from schedlab.compiled import extension_dir, extension_is_current

    chosen = COMPILED_POLICIES if policies is None else \
        tuple(name.strip() for name in policies.split(",") if name.strip())
    unknown = [name for name in chosen if name not in COMPILED_POLICIES]
    if unknown or not chosen:
        raise InputError(f"expected policies with compiled loops ({', '.join(COMPILED_POLICIES)})"
                         f", got {policies!r}", field="--policies")
    if policies is None and extension_is_current():
        console.print(f"the hot loops are compiled and current ({extension_dir()})")
        return
    console.print("compiling the hot loops (once per machine; later runs load them) ...")
    taken = compile_policies(chosen)
    for name, seconds in taken.items():
        console.print(f"  {name:<18} {seconds:6.1f} s")
    console.print(f"done in {sum(taken.values()):.1f} s")
