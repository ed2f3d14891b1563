"""`python -m curator …`: the command line, also as launchers start it
(`torchrun --nproc-per-node N -m curator probe …`, `accelerate launch -m curator probe …`)."""

from curator.cli import main

if __name__ == "__main__":
    main(prog_name="curator")
