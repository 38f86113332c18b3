"""Validation against real schedulers: a real Slurm started on this machine
(:mod:`~schedlab.validation.slurm_cluster`) and the agreement between two schedules
(:mod:`~schedlab.validation.agreement`)."""
