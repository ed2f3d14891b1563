"""`python -m curator.cli`: the same as the `curator` command."""

from curator.cli import main

main(prog_name="curator")
