"""The options of the pytest runs the tests start (pytester's, the benchmark scripts' tiny runs):
see ``_child_runs_skip_the_final_gc`` in tests/conftest.py for why each one."""

CHILD_RUN_OPTIONS = (
    "-p no:unraisableexception",
    "-o pastbench_no_report=true",
    "-o pastbench_model_service=inline",
    "-p no:hypothesispytest",
    "-p no:anyio",
)
