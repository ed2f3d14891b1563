"""One source for each truth: decision kinds, roles, merge policies and version kinds are
`core.enums` members in code, never their raw strings. The members equal their stored strings,
so a raw "reject" works today; the day a value is renamed, only the enum is changed and every
comparison follows. An AST scan of curator/ fails on a new raw one."""

from __future__ import annotations

import ast
import re
from enum import Enum
from pathlib import Path

from curator.core.enums import DecisionKind, ImportKind, Policy, QueueOrder, Role, VersionKind

ROOT = Path(__file__).resolve().parents[2]
ENUMS: tuple[type[Enum], ...] = (DecisionKind, ImportKind, Role, Policy, VersionKind)
# string value -> the enums it belongs to
VALUES: dict[str, list[str]] = {}
for _enum in ENUMS:
    for _member in _enum:
        VALUES.setdefault(_member.value, []).append(_enum.__name__)
# a parameter, keyword argument or attribute of these names holds one of the enums
NAMES = {"kind", "role", "policy", "decision", "version_kind"}
# where the raw strings belong: the enums themselves, and migrations (stored values, frozen in time)
SKIPPED = ("curator/core/enums.py", "curator/core/migrations/")


def _value(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in VALUES:
        return node.value
    return None


def _literals(node: ast.AST) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.Tuple | ast.List | ast.Set) else []


# one branch per AST shape that can hold a raw enum string: a flat list a reader checks against
# the docstring's cases beats the same cases spread over helpers
def raw_enum_strings(source: str) -> list[tuple[int, str]]:  # noqa: C901
    """(line, what) for every raw enum string used where its member is meant:
    - compared: `x == "reject"`, `x != "any"`, `x in ("accept", "amend")`, `case "unsure":`
      (a string tested for membership in a mapping, `"candidates" in data`, is a key, not a value);
    - a dict literal keyed by two or more values of one enum (a table over the enum);
    - given to, defaulting or assigned to something named kind, role, policy or decision."""
    found: list[tuple[int, str]] = []

    def hit(node: ast.AST, value: str, how: str) -> None:
        found.append((node.lineno, f'{how} "{value}" ({" or ".join(VALUES[value])})'))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for op, left, right in zip(node.ops, [node.left, *node.comparators], node.comparators):
                if isinstance(op, ast.Eq | ast.NotEq):
                    for side in (left, right):
                        if value := _value(side):
                            hit(node, value, "compared with")
                elif isinstance(op, ast.In | ast.NotIn):
                    for element in _literals(right) + _literals(left):
                        if value := _value(element):
                            hit(node, value, "compared with")
        elif isinstance(node, ast.MatchValue) and (value := _value(node.value)):
            hit(node, value, "matched against")
        elif isinstance(node, ast.Dict):
            keys = [value for key in node.keys if (value := _value(key))]
            for enum in ENUMS:
                of_enum = [key for key in keys if enum.__name__ in VALUES[key]]
                if len(of_enum) >= 2:
                    hit(node, of_enum[0], f"dict keyed by {len(of_enum)} values like")
                    break
        elif isinstance(node, ast.keyword) and node.arg in NAMES and (value := _value(node.value)):
            hit(node.value, value, f"{node.arg}=")
        elif isinstance(node, ast.arguments):
            positional = node.posonlyargs + node.args
            pairs = list(zip(positional[len(positional) - len(node.defaults) :], node.defaults))
            pairs += [(arg, default) for arg, default in zip(node.kwonlyargs, node.kw_defaults) if default]
            for arg, default in pairs:
                if arg.arg in NAMES and (value := _value(default)):
                    hit(default, value, f"default of {arg.arg}:")
        elif isinstance(node, ast.Assign | ast.AnnAssign) and (value := _value(node.value)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
                if name in NAMES:
                    hit(node, value, f"{name} =")
    return sorted(found)


def test_no_raw_decision_kind_role_policy_or_version_kind_in_the_code():
    problems = []
    for path in sorted((ROOT / "curator").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(SKIPPED):
            continue
        for line, what in raw_enum_strings(path.read_text(encoding="utf-8")):
            problems.append(f"{relative}:{line}: {what}: use the core.enums member")
    assert not problems, "\n".join(problems)


PLANTED = """
def decide(kind, user, policy="majority"):
    if kind == "reject":
        return 1
    if user.role != "maintainer" or kind in ("accept", "amend"):
        return 2
    match policy:
        case "unanimous":
            return 3
    counts = {"accept": 0, "reject": 0}
    make(kind="candidates")
    user.role = "reviewer"
    return "candidates" in counts
"""

CLEAN = """
from curator.core.enums import DecisionKind, Policy, Role

def decide(kind, user, data, policy=Policy.MAJORITY):
    if kind == DecisionKind.REJECT or user.role != Role.MAINTAINER:
        return 1
    labels = {"majority": "Majority baseline"}  # one key: a metric's name, not a table over Policy
    return "candidates" in data and data.get("review")
"""


def test_the_scan_catches_each_planted_raw_string_and_nothing_else():
    found = raw_enum_strings(PLANTED)
    assert [line for line, _ in found] == [2, 3, 5, 5, 5, 8, 10, 11, 12], found
    assert found[1] == (3, 'compared with "reject" (DecisionKind or ImportKind)')
    assert raw_enum_strings(CLEAN) == []


# ---------------------------------------------------------------- templates and scripts
# The web pages compare with the members too: the app puts the enums in the templates' globals
# (`v.kind == VersionKind.CANDIDATES`) and review.js reads the decision kinds from a JSON block
# of the page (`kind === KINDS.AMEND`). A regular expression over the text (Jinja and JavaScript
# have no Python AST) finds a quoted value compared with ==, !=, ===, !== or tested with `in (…)`.
WEB_ENUMS: tuple[type[Enum], ...] = (*ENUMS, QueueOrder)
WEB_VALUES = sorted({member.value for enum in WEB_ENUMS for member in enum}, key=len, reverse=True)
_QUOTED = r"""['"]({values})['"]""".format(values="|".join(map(re.escape, WEB_VALUES)))
_OPERATOR = r"[!=]==?"  # ==, !=, ===, !==
_COMPARED = re.compile(rf"{_OPERATOR}\s*{_QUOTED}|{_QUOTED}\s*{_OPERATOR}")
_IN = re.compile(r"\bin\s*[(\[]([^)\]]*)[)\]]")  # `in (…)`, `in […]`


def raw_enum_strings_in_web(text: str) -> list[tuple[int, str]]:
    """(line, value) for every quoted enum value compared in a template or script."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        found += [(number, match.group(1) or match.group(2)) for match in _COMPARED.finditer(line)]
        for match in _IN.finditer(line):
            found += [(number, element.group(1)) for element in re.finditer(_QUOTED, match.group(1))]
    return found


def test_no_raw_enum_strings_in_the_templates_and_scripts():
    web = ROOT / "curator" / "web"
    problems = []
    for path in sorted([*(web / "templates").rglob("*.html"), *(web / "static").rglob("*.js")]):
        for line, value in raw_enum_strings_in_web(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(ROOT).as_posix()}:{line}: compared with '{value}': use the enum")
    assert not problems, "\n".join(problems)


PLANTED_WEB = """
{% if v.kind == 'candidates' %}x{% endif %}
{{ _('maintainer') if r.user.role != "maintainer" }}
{% if "unsure" == d.decision %}{% endif %}
      if (kind === "amend") body.correction = correction;
      if (x !== 'reject' && y) {}
{% if d.decision in ('accept', "amend") %}{% endif %}
{{ 'selected' if o == 'risk' }}
{% if v.kind == VersionKind.CANDIDATES %}{% if dir == 'rtl' %}{% endif %}{% endif %}
      if (kind === KINDS.AMEND && part.slot === "Y") {}
<option value="maintainer">{{ _("accept: a correct paraphrase") }}</option>
{% if code in form.get('languages', []) %}{% endif %}
"""


def test_the_web_scan_catches_each_planted_comparison_and_nothing_else():
    assert raw_enum_strings_in_web(PLANTED_WEB) == [
        (2, "candidates"),
        (3, "maintainer"),
        (4, "unsure"),
        (5, "amend"),
        (6, "reject"),
        (7, "accept"),
        (7, "amend"),
        (8, "risk"),
    ]
