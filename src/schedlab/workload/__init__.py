"""Workloads: the job record, SWF input/output, transforms, trace statistics, models."""

from schedlab.workload.job import Job, Workload

__all__ = ["Job", "Workload"]
