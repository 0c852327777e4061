"""Adapters over other projects' private APIs: one module per library, each the only place that
touches that library's internals (tests/compat/ fails naming the library and version when one
changes)."""
