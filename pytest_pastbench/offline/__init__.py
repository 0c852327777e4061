"""The offline reference models (``pastbench/blind|recall|curator``).

Importing ``provider`` imports litellm; the harness's rule for that import (the local price map,
so nothing is fetched from the network) is applied here too, whoever imports it first.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
