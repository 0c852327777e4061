"""The offline reference models (``pastbench/blind|recall|curator``) and their litellm provider."""
