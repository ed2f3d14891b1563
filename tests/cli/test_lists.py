"""List options (cli/common.py `list_option`): click's `multiple=True` with a splitting type and a
joining callback, no argv rewriting. Every list option of every command takes comma-separated
values and repeats, and both spellings give the command the same list."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from curator.cli import main
from curator.cli.common import _joined
from curator.cli.translate import translate_command


def commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


LIST_OPTIONS = [
    (path, option)
    for path, command in commands(main)
    for option in command.params
    if isinstance(option, click.Option) and option.callback is _joined
]


def test_the_list_options_are_found():
    found = {(path, option.opts[0]) for path, option in LIST_OPTIONS}
    assert {("translate", "--languages"), ("translate", "--relations"), ("probe", "--languages")} <= found
    assert len(found) >= 12


@pytest.mark.parametrize(
    "path, option", LIST_OPTIONS, ids=[f"{path} {option.opts[0]}" for path, option in LIST_OPTIONS]
)
def test_comma_separated_and_repeated_give_the_same_list(path, option):
    """The option as the command declares it (type, multiple, callback), parsed on its own."""
    alone = click.Command("t", params=[option])
    flag = option.opts[0]
    values = ("es", "ar", "P19") if not flag.startswith("--lang") else ("es", "ar", "is")

    def parse(*args: str) -> list[str]:
        return alone.make_context("t", list(args)).params[option.name]

    expected = list(values)
    assert parse(flag, ",".join(values)) == expected
    assert parse(*[a for v in values for a in (flag, v)]) == expected
    assert parse(flag, " ".join(values)) == expected
    assert parse(flag, "es,ar", flag, "es", flag, values[2]) == expected  # in order, once each
    if not option.required:
        assert parse() == []


def test_translate_takes_both_spellings():
    def params(*args: str) -> dict:
        return translate_command.make_context("translate", [*args, "--system", "deepl"]).params

    both = params("--languages", "is,fo", "--relations", "P19,P36")
    assert both["languages"] == ["is", "fo"] and both["relations"] == ["P19", "P36"]
    repeated = params("--languages", "is", "--languages", "fo", "--relations", "P19", "--relations", "P36")
    assert repeated == both


def test_values_after_a_list_option_without_a_comma_are_refused():
    """No argv rewriting: `--languages is fo` is click's usage error, naming the stray value."""
    result = CliRunner().invoke(main, ["translate", "--languages", "is", "fo", "--system", "deepl"])
    assert result.exit_code == 2
    assert "Got unexpected extra argument (fo)" in result.output
