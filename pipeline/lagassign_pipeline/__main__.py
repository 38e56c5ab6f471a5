"""``python -m lagassign_pipeline``: run the pipeline job."""

from lagassign_pipeline.job import main

raise SystemExit(main())
