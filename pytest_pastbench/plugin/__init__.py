"""The pytest glue: hooks (the pytest11 entry point), the run object, options, fixtures."""
