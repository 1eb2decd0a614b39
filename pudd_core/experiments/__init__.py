"""Experiments: runs of a stream, a classifier and a detector, and what is made of them.

``runner`` runs one configuration chunk by chunk (test, then train); ``grid`` expands grids of
configurations and keeps their results in a Parquet store; ``sweep`` studies PUDD's threshold
and false alarms; ``evaluation`` scores a run against its true drifts; ``detectors`` is the
registry of every detector a run can use (and how the chunk loop feeds it); ``baselines``
names river's detectors; ``cost`` estimates a run's wall-clock time before it starts;
``seeding`` says which parts of a run depend on its seed. The paper's reproduction, one layer
up, is ``pudd_core.reproduction``.
"""
