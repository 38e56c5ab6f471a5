"""The consumer groups as ``/groups`` shows them: the report (pure values) and its HTML page."""
