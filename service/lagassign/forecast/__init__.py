"""The pipeline's forecast weights: the file format and the source that re-reads it."""
