"""Figures: policy comparisons, curves against load, Gantt charts, time series."""
