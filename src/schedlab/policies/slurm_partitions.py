"""The partitions of the ``slurm`` policy: which CPUs a job may use, node by node.

A partition is a set of nodes (slurm.conf's ``PartitionName ... Nodes=``); a job
runs on CPUs of its partition's nodes.  Partitions may share nodes, so the CPUs
free to one partition depend on what jobs of the others hold: :class:`Nodes`
keeps every node's free CPUs and every running job's CPUs per node.

Our reading of ``select/cons_tres`` (Slurm's source, where the documentation is
silent): a job of ``w`` CPUs may take them from several nodes, so it fits a
partition when the partition's nodes have ``w`` CPUs free between them; it gets
them from the partition's nodes in node order, each node giving all the CPUs it
has free (first fit; Slurm weighs nodes and prefers the best fit, which node
order stands in for).  With one partition of every node this is exactly the
machine's free CPUs, and no node is tracked (:attr:`Nodes.tracked` is False).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from schedlab.workload.slurmconf import Partition


class Nodes:
    """Free CPUs per node and per partition, and each running job's CPUs per node."""

    def __init__(self, partitions: Sequence[Partition], nodes: int, cpus_per_node: int) -> None:
        self.cpus_per_node = cpus_per_node
        #: Each partition's node positions (every node for ``Nodes=ALL``).
        self.members: list[tuple[int, ...]] = [p.nodes or tuple(range(nodes))
                                               for p in partitions]
        #: Whether jobs are placed on nodes: not with one partition of every node.
        self.tracked = not (len(partitions) == 1 and len(self.members[0]) == nodes)
        self.node_free = [cpus_per_node] * nodes
        self.part_free = [len(members) * cpus_per_node for members in self.members]
        self.parts_of: list[list[int]] = [[] for _ in range(nodes)]
        for k, members in enumerate(self.members):
            for node in members:
                self.parts_of[node].append(k)
        #: Partitions sharing nodes with each partition, and how many nodes they share.
        self.shared: list[dict[int, int]] = [
            {q: len(set(mine) & set(other)) for q, other in enumerate(self.members)
             if q != k and set(mine) & set(other)} for k, mine in enumerate(self.members)]
        self.held: dict[int, list[tuple[int, int]]] = {}    # job id -> (node, CPUs)

    def capacity(self, part: int) -> int:
        """Every CPU of the partition's nodes."""
        return len(self.members[part]) * self.cpus_per_node

    def free(self, part: int, blocked: frozenset[int] | set[int] = frozenset()) -> int:
        """The CPUs free on the partition's nodes, leaving out ``blocked`` nodes."""
        if not blocked:
            return self.part_free[part]
        return sum(self.node_free[node] for node in self.members[part] if node not in blocked)

    def take(self, job_id: int, part: int, width: int,
             blocked: frozenset[int] | set[int] = frozenset()) -> None:
        """Give a starting job ``width`` CPUs of its partition's nodes, first fit in node
        order (the caller has checked that they are free)."""
        pieces = []
        left = width
        for node in self.members[part]:
            if left == 0:
                break
            if node in blocked or self.node_free[node] == 0:
                continue
            cpus = min(left, self.node_free[node])
            pieces.append((node, cpus))
            left -= cpus
        self._change(pieces, -1)
        self.held[job_id] = pieces

    def give_back(self, job_id: int) -> list[tuple[int, int]]:
        """Free an ended job's CPUs; returns where they were."""
        pieces = self.held.pop(job_id, [])
        self._change(pieces, 1)
        return pieces

    def cpus_in(self, pieces: Iterable[tuple[int, int]], part: int) -> int:
        """How many of the CPUs ``pieces`` lie on the partition's nodes."""
        return sum(cpus for node, cpus in pieces if part in self.parts_of[node])

    def _change(self, pieces: Iterable[tuple[int, int]], sign: int) -> None:
        for node, cpus in pieces:
            self.node_free[node] += sign * cpus
            for part in self.parts_of[node]:
                self.part_free[part] += sign * cpus
