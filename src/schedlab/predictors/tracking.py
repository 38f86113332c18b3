"""What a scheduler keeps of its predictions while jobs wait and run.

:class:`PredictionTracker` is the piece a backfilling policy holds to plan
with predictions instead of estimates (the wiring into EASY and conservative
backfilling is not done yet; docs/reference/predictions.md): it asks the
predictor once per job at submission, hands every ended job to ``observe``,
and gives a running job's predicted end, corrected by the predictor's rule
(and counted) whenever the job has outlived it.  It sees jobs as the engine
does; the predictor still sees only queries and ended jobs.
"""

from __future__ import annotations

from schedlab.outcomes import FINISHED
from schedlab.predictors.base import PredictionQuery, Predictor, ended_job, query_of
from schedlab.workload.job import Job


class PredictionTracker:
    """Every waiting and running job's prediction, for one run.

    * :meth:`submitted` at a job's submission: predicts it (an oracle is first
      told the job's runtime through ``reveal``, its documented channel);
    * :meth:`prediction` while it waits: its predicted runtime;
    * :meth:`expected_end` while it runs: ``start + prediction``, the
      prediction first corrected, as often as needed, while ``start +
      prediction <= now`` (the job outlived it), each correction counted in
      :attr:`corrections`; always later than ``now``;
    * :meth:`ended` when it ends (finished or killed): the predictor observes
      it and the tracker forgets it; :meth:`forget` for a job that never ran
      (rejected), which the predictor does not observe.

    Times are the engine's integer seconds; a suspended job's time off its
    processors is the caller's to subtract from ``now - start``.
    """

    def __init__(self, predictor: Predictor) -> None:
        self.predictor = predictor
        #: How many times a prediction was corrected (a job outlived its prediction).
        self.corrections = 0
        #: How many jobs were corrected at least once.
        self.corrected_jobs = 0
        self._queries: dict[int, PredictionQuery] = {}
        self._predicted: dict[int, int] = {}
        self._corrected: set[int] = set()

    def submitted(self, job: Job, app: int = -1) -> int:
        """Predict ``job`` (at its submission) and keep the prediction."""
        query = query_of(job, app)
        if self.predictor.looks_ahead:
            self.predictor.reveal({job.id: job.runtime})
        predicted = self._predicted[job.id] = self.predictor.predict(query)
        self._queries[job.id] = query
        return predicted

    def prediction(self, job_id: int) -> int:
        """The current prediction of a job the tracker holds (corrected or not)."""
        return self._predicted[job_id]

    def expected_end(self, job_id: int, start: int, now: int) -> int:
        """When a job running since ``start`` is predicted to end, after ``now``."""
        predicted = self._predicted[job_id]
        if start + predicted > now:
            return start + predicted
        query = self._queries[job_id]
        while start + predicted <= now:
            predicted = self.predictor.corrected(query, predicted, now - start)
            self.corrections += 1
        if job_id not in self._corrected:
            self._corrected.add(job_id)
            self.corrected_jobs += 1
        self._predicted[job_id] = predicted
        return start + predicted

    def ended(self, job: Job, start: int, end: int, status: int = FINISHED) -> None:
        """``job`` ran from ``start`` to ``end``: the predictor observes it."""
        query = self._queries.pop(job.id, None)
        self._predicted.pop(job.id, None)
        self._corrected.discard(job.id)
        self.predictor.observe(ended_job(job, start, end, status,
                                         app=-1 if query is None else query.app))

    def forget(self, job_id: int) -> None:
        """Drop a job that will not run (rejected): nothing is observed."""
        self._queries.pop(job_id, None)
        self._predicted.pop(job_id, None)
        self._corrected.discard(job_id)

    def statistics(self) -> dict[str, int]:
        """The counts a result reports: ``prediction_corrections``, ``corrected_jobs``."""
        return {"prediction_corrections": self.corrections,
                "corrected_jobs": self.corrected_jobs}
