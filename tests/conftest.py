"""Shared set-up of the project's own tests."""

# pytester restores sys.modules after every test that uses it, dropping the modules that test
# imported. A test that draws (plots, plasticity PNGs through `pastbench merge`) in the test
# process would leave matplotlib half unloaded, and the next drawing test would see two copies
# of its classes ("Legend needs either Axes or FigureBase as parent"). Importing the drawing
# modules once here puts them in every snapshot.
import matplotlib.backends.backend_agg  # noqa: F401
import matplotlib.figure  # noqa: F401
import matplotlib.legend  # noqa: F401
import matplotlib.style  # noqa: F401
