"""The paper's numbers (Margo §6): weighted wait and expansion factor per month and scenario."""

from __future__ import annotations

#: The paper's numbers (§6): scenario -> (weighted wait in hours, expansion factor).
PAPER = {"2006": {"baseline": (6.03, 2.05), "reservations": (74.0, 7.35),
                  "throttled": (4.44, 1.70)},
         "2007": {"baseline": (13.7, 2.53), "reservations": (107.0, 9.35),
                  "throttled": (44.0, 5.21)}}


def paper_range(scenario: str, ratio: bool = False) -> str:
    """The paper's two months (§6) for one scenario: its expansion factors ``7.35-9.35``,
    or (``ratio``) the factor over the month's baseline, ``x3.59-3.70``."""
    values = sorted(months[scenario][1] / (months["baseline"][1] if ratio else 1)
                    for months in PAPER.values())
    prefix = "x" if ratio else ""
    return f"{prefix}{values[0]:.2f}-{values[-1]:.2f}"


def paper_table():
    """The paper's numbers (§6) as a table: month x scenario."""
    import pandas as pd

    rows = [{"month": month, "scenario": scenario, "wait_h": wait, "expansion_factor": ef}
            for month, values in PAPER.items() for scenario, (wait, ef) in values.items()]
    return pd.DataFrame(rows).set_index(["month", "scenario"])
