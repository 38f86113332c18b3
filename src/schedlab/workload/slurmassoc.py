"""Slurm's association tree (accounts, users, shares), as ``sacctmgr show assoc`` prints it.

The ``slurm`` policy's fair-share factor ranks the associations of this tree
by their shares and decayed usage (docs/reference/policies/slurm.md,
"Fair-share").  The file is sacctmgr's own output, exported from the
accounting database as it is::

    sacctmgr show assoc --parsable2 format=Cluster,Account,User,Partition,Share,ParentName

A header line of column names separated by ``|`` (``--parsable``'s trailing
``|`` is accepted too), then one association a line.  The columns read:

* ``Account`` and ``User`` (required): a line with a user is that user's
  association in the account; a line without one is the account itself;
* ``Share`` (required; sacctmgr's ``Fairshare``): a whole number >= 0;
* ``ParentName`` (``Par Name``): an account's parent account.  Without the
  column every account is a child of ``root`` (our reading: sacctmgr's
  default format has no parent column, and a flat tree is what it can say);
* ``Cluster``: one cluster's associations only;
* ``Partition``: a per-partition association is not modelled: it is named in
  a warning and left out.

The ``root`` account is the tree's root and its line is not needed.  Every
other column holding something (limits such as ``GrpTRES`` or ``MaxJobs``,
an association ``Priority``) is named in a warning with its file and line:
it is not modelled.  ``Fairshare=parent`` is an error: it is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from schedlab.errors import InputError
from schedlab.textio import parse_int, pipe_table, read_text

#: The command whose output :func:`read_associations` reads (docs/reference/policies/slurm.md).
SACCTMGR_ASSOC_COMMAND = ("sacctmgr show assoc --parsable2 "
                          "format=Cluster,Account,User,Partition,Share,ParentName")
#: The account every tree hangs from.
ROOT = "root"
#: Columns read, lower-cased, to the key they fill ("par name": sacctmgr's header for
#: ParentName).
_COLUMNS = {"account": "account", "user": "user", "share": "share", "fairshare": "share",
            "parentname": "parent", "par name": "parent", "cluster": "cluster",
            "partition": "partition"}
#: Columns whose default value needs no warning (sacctmgr fills them for every line).
_QUIET = {"qos": None, "def qos": None, "defaultqos": None, "id": None, "lft": None,
          "rgt": None}


class Association(NamedTuple):
    """One association: ``user`` in ``account`` (``user`` empty: the account itself) with
    ``shares``; ``parent`` is an account's parent account (root: ``"root"``)."""

    account: str
    user: str = ""
    shares: int = 1
    parent: str = ROOT


@dataclass
class AssociationTable:
    """The associations of a file, in file order, and a warning per value not modelled."""

    associations: list[Association] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_associations(path: str | Path) -> AssociationTable:
    """The associations of the ``sacctmgr show assoc --parsable2`` output at ``path`` (see
    the module); bad input is an InputError naming the file, line and column."""
    return parse_associations(read_text(path, "association file"), str(path))


def parse_associations(text: str, source: str) -> AssociationTable:
    """The associations of ``sacctmgr show assoc --parsable2`` output given as ``text``;
    errors and warnings name ``source``."""
    header, rows = pipe_table(text, source, SACCTMGR_ASSOC_COMMAND)
    keys = [_COLUMNS.get(column.strip().lower()) for column in header]
    for needed, column in (("account", "Account"), ("user", "User"), ("share", "Share")):
        if needed not in keys:
            raise InputError(f"missing column; export with `{SACCTMGR_ASSOC_COMMAND}`",
                             file=source, line=1, field=column)
    table = AssociationTable()
    seen: dict[tuple[str, str], int] = {}
    clusters: set[str] = set()
    for number, values in rows:
        row = {key: value.strip() for key, value in zip(keys, values) if key is not None}
        _warn_unmodelled(header, keys, values, table.warnings, source, number)
        if row.get("cluster"):
            clusters.add(row["cluster"])
            if len(clusters) > 1:
                raise InputError(f"associations of more than one cluster "
                                 f"({', '.join(sorted(clusters))}): export one with "
                                 f"`sacctmgr show assoc cluster=NAME ...`", file=source,
                                 line=number, field="Cluster")
        if row.get("partition"):
            table.warnings.append(f"{source}:{number}: Partition: per-partition "
                                  f"associations are not modelled (line left out)")
            continue
        association = _association(row, source, number)
        if association is None:
            continue
        key = (association.account, association.user)
        if key in seen:
            raise InputError(f"association {_label(association)} is listed twice (first on "
                             f"line {seen[key]})", file=source, line=number, field="Account")
        seen[key] = number
        table.associations.append(association)
    _check_tree(table.associations, seen, source)
    return table


def _association(row: dict[str, str], source: str, line: int) -> Association | None:
    """One line's association (None: the root account's own line)."""
    account, user = row["account"], row["user"]
    if not account:
        raise InputError("an association needs an account", file=source, line=line,
                         field="Account")
    if account == ROOT and not user:
        return None
    text = row["share"]
    if text.lower() == "parent":
        raise InputError("Fairshare=parent is not modelled: give the association shares "
                         "of its own", file=source, line=line, field="Share")
    if not (text.isascii() and text.isdigit()):
        raise InputError(f"expected a whole number of shares >= 0, got {text!r}",
                         file=source, line=line, field="Share")
    shares = parse_int(text, field="Share", file=source, line=line, limit=2**32)
    parent = account if user else (row.get("parent") or ROOT)
    return Association(account, user, shares, parent)


def _warn_unmodelled(header: list[str], keys: list[str | None], values: list[str],
                     warnings: list[str], source: str, line: int) -> None:
    for column, key, value in zip(header, keys, values):
        if key is None and value.strip() and column.strip().lower() not in _QUIET:
            warnings.append(f"{source}:{line}: {column}: not modelled (ignored)")


def _check_tree(associations: list[Association], lines: dict[tuple[str, str], int],
                source: str) -> None:
    """Every user's account and every account's parent is in the file (or is root), and
    no account is its own ancestor."""
    accounts = {a.account: a for a in associations if not a.user}
    for association in associations:
        needed = association.account if association.user else association.parent
        if needed != ROOT and needed not in accounts:
            raise InputError(f"association {_label(association)} hangs from account "
                             f"{needed!r}, which has no line of its own",
                             file=source, line=lines[association.account, association.user],
                             field="ParentName" if not association.user else "Account")
    for name in accounts:
        seen = {name}
        parent = accounts[name].parent
        while parent != ROOT:
            if parent in seen:
                raise InputError(f"account {name!r} is its own ancestor", file=source,
                                 line=lines[name, ""], field="ParentName")
            seen.add(parent)
            parent = accounts[parent].parent


def _label(association: Association) -> str:
    if association.user:
        return f"of user {association.user!r} in account {association.account!r}"
    return f"of account {association.account!r}"
