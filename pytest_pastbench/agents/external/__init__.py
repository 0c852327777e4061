"""External agents: programs that speak ``pastbench-agent/1`` (JSON lines on stdio), run as a
local subprocess (``process.py``) or in a container (``docker.py``), and reach the model only
through the run's loopback gateway. ``driver.py`` holds the conversation; ``wire.py`` the
messages; ``agent_files.py`` how they are selected."""
