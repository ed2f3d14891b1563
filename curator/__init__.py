"""curator: machine-translated paraphrase templates to a reviewed multilingual dataset.

The package is layered (see docs/architecture.md): `core` → stage services (`ingest`,
`translate`, `quality`, `review`, `release`, `probe`, `analysis`) → `demo` → `web` and `cli`.
Importing `curator` imports nothing else, so a stage can be used without Flask.
"""

__version__ = "0.1.0"
