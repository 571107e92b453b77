"""The README and docs/ stay true: the README fits on a few screens and links every page,
every relative link resolves (to a file, and to a heading when it names one), and the facts
the pages state are read back from the code: commands and their flags, exit codes, make
targets, configuration keys and defaults, HTTP routes, MCP tools, agent profiles, drive-tick
rules, the embedded world's commands and the known mineflayer issues. Each check reads the
page where the fact lives, so a page that drifts from the code fails here."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import pytest

from agency.cognition.progression import PROGRESSION
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INIT, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, EXIT_SCHEMA
from bot.cli.main import build_parser
from bot.config.loader import McbotConfig, _flatten
from bot.mcp.server import direct_tools, look_tools, stop_tool
from bot.mcp.tools import ACTION_TOOLS, GROUP_META
from bot.runtime.api.app import route_table
from bot.runtime.realities import KNOWN_ISSUES

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
README_MAX_LINES = 300

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)\s]+)\)")  # links and images
SPAN = re.compile(r"``(.+?)``|`([^`]+)`", re.S)  # a span may run over a line break


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _page(name: str) -> str:
    return _text(DOCS / name)


def _all() -> dict[Path, str]:
    return {p: _text(p) for p in [README, *PAGES]}


def _prose(text: str) -> str:
    return FENCE.sub("", text)


def _spans(text: str) -> list[str]:
    """The inline code spans outside fenced blocks, their whitespace collapsed."""
    return [" ".join((double or single).split()) for double, single in SPAN.findall(_prose(text))]


def _fenced_lines(text: str) -> list[str]:
    return [line for block in FENCE.findall(text) for line in block.splitlines()[1:-1]]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", _prose(text), re.M):
        slug = _slug(heading)
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def _table(text: str, header: str) -> list[list[str]]:
    """The rows (cells split on unescaped pipes) of every table whose header row starts so."""
    lines, rows = text.splitlines(), []
    starts = [i for i, line in enumerate(lines) if line.startswith(header)]
    assert starts, f"no table starting {header!r}"
    for start in starts:
        for line in lines[start + 2 :]:
            if not line.startswith("|"):
                break
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


# ---------------------------------------------------------------------------- shape, links


def test_the_readme_fits_on_a_few_screens():
    n = len(_text(README).splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines; move detail to docs/ (at most {README_MAX_LINES})"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / t.split("#")[0]).resolve() for t in LINK.findall(_prose(_text(README)))}
    assert PAGES, "docs/ has no pages"
    missing = [p.name for p in PAGES if p.resolve() not in linked]
    assert not missing, f"docs pages not linked from README.md: {missing}"


def test_every_relative_link_resolves_to_a_file_and_heading():
    broken = []
    for path, text in _all().items():
        for target in LINK.findall(_prose(text)):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not ours to check here
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.is_file():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(_text(dest)):
                broken.append(f"{path.name}: {target} (no such heading in {dest.name})")
    assert not broken, "\n".join(broken)


def test_slugs_follow_github():
    assert _slug("The bot as an MCP server (`mcbot mcp`)") == "the-bot-as-an-mcp-server-mcbot-mcp"
    assert _slug("The world's supervisor") == "the-worlds-supervisor"
    assert _anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


# ---------------------------------------------------------------------------- command line


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _invocations() -> list[tuple[str, str]]:
    """(page, the command line after `mcbot`) for every mcbot command the pages show."""
    found = []
    for path, text in _all().items():
        for span in _spans(text):
            if span.startswith("mcbot "):
                found.append((path.name, span[len("mcbot ") :]))
        for line in _fenced_lines(text):
            m = re.match(r"^(?:\$ )?(?:\.venv/bin/)?mcbot ([^#;]*)", line.strip())
            if m:
                found.append((path.name, m.group(1)))
    return found


def _resolve(words: list[str]) -> tuple[list[str], argparse.ArgumentParser]:
    """Walks the subcommands the words name; fails on one the parser does not have."""
    parser, chain = build_parser(), []
    for word in words:
        subs = _subparsers(parser)
        if word.startswith("-") or not subs:
            break
        assert word in subs, f"mcbot {' '.join([*chain, word])}: no such command (has {sorted(subs)})"
        chain.append(word)
        parser = subs[word]
    return chain, parser


def _options(p: argparse.ArgumentParser) -> set[str]:
    return {s for a in p._actions for s in a.option_strings}


def _expand(line: str) -> list[list[str]]:
    """`task pause|resume ID` -> one word list per alternative of the first word with a pipe."""
    words = [w.strip("[]") for w in line.replace("\\|", "|").split()]
    for i, w in enumerate(words):
        if "|" in w and not w.startswith("-"):
            return [[*words[:i], alt, *words[i + 1 :]] for alt in w.split("|") if alt]
    return [words]


def test_every_command_the_pages_show_exists_with_its_flags():
    invocations = _invocations()
    assert len(invocations) > 40  # the pages show many; a broken scan would find none
    global_options = _options(build_parser())
    for page, line in invocations:
        for words in _expand(line):
            chain, parser = _resolve(words)
            positional = [a for a in parser._actions if not a.option_strings and a.choices]
            rest = words[len(chain) :]
            if positional and rest and not rest[0].startswith("-"):
                assert rest[0] in positional[0].choices, (
                    f"{page}: mcbot {line}: {rest[0]!r} not one of {sorted(positional[0].choices)}"
                )
            for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", " ".join(rest)):
                assert flag in _options(parser) | global_options, f"{page}: mcbot {line}: no option {flag}"


def test_the_command_table_lists_every_command():
    documented = set()
    for cells in _table(_page("api.md"), "| command |"):
        for span in _spans(cells[0]):
            for words in _expand(span.removeprefix("mcbot ")):
                documented.add(" ".join(_resolve(words)[0]))

    def leaves(p: argparse.ArgumentParser, chain: list[str]) -> list[str]:
        subs = _subparsers(p)
        if not subs:
            return [" ".join(chain)]
        return [leaf for name, sp in subs.items() for leaf in leaves(sp, [*chain, name])]

    missing = sorted(set(leaves(build_parser(), [])) - documented)
    assert not missing, f"commands missing from the command table in docs/api.md: {missing}"


def test_exit_codes_are_the_ones_the_command_line_returns():
    text = re.sub(r"\s+", " ", _page("api.md"))
    para = text[text.index("Exit codes:") : text.index("For example, with nothing listening")]
    documented = {int(code): words for code, words in re.findall(r"`(\d+)` ([a-z]+)", para)}
    meaning = {
        "ok": EXIT_OK,
        "failure": EXIT_FAILURE,
        "initialization": EXIT_INIT,
        "invalid": EXIT_INVALID,
        "schema": EXIT_SCHEMA,
        "a": EXIT_INTERRUPTED,
    }
    assert {code: meaning[word] for code, word in documented.items()} == {c: c for c in documented}
    assert set(documented) == {EXIT_OK, EXIT_FAILURE, EXIT_INIT, EXIT_INVALID, EXIT_SCHEMA, EXIT_INTERRUPTED}


# ---------------------------------------------------------------------------- make


def _make_targets() -> set[str]:
    phony = re.search(r"^\.PHONY: (.+)$", _text(ROOT / "Makefile"), re.M)
    assert phony
    return set(phony.group(1).split())


def test_every_make_target_named_exists_and_the_readme_lists_them_all():
    targets = _make_targets()
    for path, text in _all().items():
        named = {m for span in _spans(text) for m in re.findall(r"^make ([a-z][\w-]*)", span)}
        named |= {m for line in _fenced_lines(text) for m in re.findall(r"^\$? ?make ([a-z][\w-]*)", line)}
        assert named <= targets, f"{path.name} names make targets that do not exist: {sorted(named - targets)}"
    in_readme = set(re.findall(r"`make ([a-z][\w-]*)", _text(README)))
    assert targets <= in_readme, f"make targets the README does not list: {sorted(targets - in_readme)}"


# ---------------------------------------------------------------------------- configuration


DEFAULTS = _flatten(McbotConfig.model_construct().model_dump())  # as declared (world_folder "auto")
SECTIONS = set(McbotConfig.model_fields)


def _is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(".".join(dotted.split(".")[:2])) is not None
    except ModuleNotFoundError:
        return False


def _config_keys_named(text: str) -> set[str]:
    keys = set()
    for span in _spans(text):
        key = span.split(" = ")[0].strip()
        m = re.fullmatch(r"([a-z_]+)\.[a-z_]+(?:\.[a-z_]+)*", key)
        if (
            m
            and m.group(1) in SECTIONS
            and not _is_module(key)
            and not re.search(r"\.(js|py|toml|json|md|log|db|properties)$", key)
        ):
            keys.add(key)
    for section, key in re.findall(r"MCBOT_([A-Z_]+?)__([A-Z_]+)", text):
        keys.add(f"{section.lower()}.{key.lower()}")
    return keys


def test_every_config_key_the_pages_name_exists():
    named_anywhere = set()
    for path, text in _all().items():
        keys = _config_keys_named(text)
        named_anywhere |= keys
        unknown = sorted(k for k in keys if k not in DEFAULTS)
        assert not unknown, f"{path.name} names config keys that do not exist: {unknown}"
    assert len(named_anywhere) > 60  # a broken scan would check nothing


def _default_of(doc: str) -> object:
    if doc == "unset":
        return None
    if doc == "[]":
        return []
    if doc in ("true", "false"):
        return doc == "true"
    if re.fullmatch(r"-?\d+(\.\d+)?", doc):
        return float(doc)
    return doc.strip('"')


def test_the_configuration_table_gives_the_real_defaults():
    rows = _table(_page("configuration.md"), "| key | default |")
    assert len(rows) > 20
    for key_cell, default_cell, _ in rows:
        keys = _spans(key_cell)
        docs = _spans(default_cell) or [default_cell]
        assert len(keys) == len(docs), f"{key_cell}: {len(keys)} keys, {len(docs)} defaults"
        for key, doc in zip(keys, docs, strict=True):
            real = DEFAULTS[key]
            want = _default_of(doc)
            if isinstance(real, bool) or real is None:
                assert want is real, f"{key}: the page says {doc}, the default is {real!r}"
            elif isinstance(real, (int, float)):
                assert want == real, f"{key}: the page says {doc}, the default is {real!r}"
            else:
                assert want == real, f"{key}: the page says {doc}, the default is {real!r}"


# ---------------------------------------------------------------------------- HTTP API


def _segments(path: str) -> list[str]:
    return ["{}" if s.startswith("{") else s for s in path.strip("/").split("/")]


def _documented_routes() -> set[tuple[str, str]]:
    routes = set()
    for cells in _table(_page("api.md"), "| endpoint |"):
        for method, path in re.findall(r"`(GET|POST|PUT|PATCH|DELETE) ([^`?\s\[]+(?:\[/\{id\}\])?)", cells[0]):
            path = path.replace("\\|", "|")
            for p in [path.replace("[/{id}]", ""), path.replace("[/{id}]", "/{id}")] if "[" in path else [path]:
                head, _, last = p.rpartition("/")
                for alt in last.split("|"):
                    routes.add((method, f"{head}/{alt}"))
    return routes


def _matches(doc: tuple[str, str], real: tuple[str, str]) -> bool:
    d, r = _segments(doc[1]), _segments(real[1])
    return doc[0] == real[0] and len(d) == len(r) and all(rs == "{}" or ds == rs for ds, rs in zip(d, r, strict=True))


def test_the_api_table_names_every_route_and_only_real_ones():
    real = set(route_table())
    documented = _documented_routes()
    assert len(documented) > 30
    unknown = sorted(d for d in documented if not any(_matches(d, r) for r in real))
    undocumented = sorted(r for r in real if not any(_matches(d, r) for d in documented))
    assert not unknown, f"docs/api.md documents routes the API does not have: {unknown}"
    assert not undocumented, f"routes missing from the endpoint table of docs/api.md: {undocumented}"


# ---------------------------------------------------------------------------- MCP


def test_the_mcp_table_names_every_tool_in_its_group():
    real = {(t.meta[GROUP_META], t.name) for t in look_tools(None) + direct_tools(None) + [stop_tool(None)]}
    real |= {(a.group, a.name) for a in ACTION_TOOLS}
    documented, act_tools = set(), []
    for group, tools, what in _table(_page("api.md"), "| group | tool |"):
        lead = re.match(r"(?:`[a-z_]+`(?:, )?)+", tools)
        assert lead, tools
        documented |= {(group, name) for name in _spans(lead.group(0))}
        if group == "act":  # the daemon's tools they run, in the same order
            act_tools = _spans(re.match(r"(?:`[a-z_]+`(?:, )?)+", what).group(0))
    assert documented == real
    assert act_tools == [a.tool for a in ACTION_TOOLS if a.group == "act"]


# ---------------------------------------------------------------------------- agency


def test_the_agent_profiles_listed_are_the_shipped_ones():
    text = re.sub(r"\s+", " ", _page("agents.md"))
    listed = re.search(r"`config/agents/\*\.toml`: ((?:`\w+`, )+)each owning", text)
    assert listed
    shipped = {p.stem for p in (ROOT / "config" / "agents").glob("*.toml")}
    assert set(_spans(listed.group(1))) == shipped


def test_every_drive_tick_rule_named_is_one_the_code_emits():
    source = "\n".join(_text(p) for p in (ROOT / "agency").rglob("*.py"))
    text = _page("goals.md")
    rules = {cells[0].strip("`") for cells in _table(text, "| rule |")}
    rules |= set(re.findall(r"rule=(\w+)", text))
    rules.discard("default")  # the catch-all row: no rule of its own
    assert len(rules) > 12
    steps = {step.rule for step in PROGRESSION}  # named after their item: have_<item>
    missing = sorted(r for r in rules if f'"{r}"' not in source and r not in steps)
    assert not missing, f"docs/goals.md names drive-tick rules the code does not emit: {missing}"


# ---------------------------------------------------------------------------- the world, Paper


def test_the_embedded_worlds_commands_are_the_plugins():
    usage = re.search(r"const USAGE = '([a-z|]+)'", _text(ROOT / "node" / "plugins" / "commands.js"))
    assert usage
    documented = set(re.findall(r"`/mcbot ([a-z]+)", _page("world.md")))
    assert documented == set(usage.group(1).split("|"))


def test_the_known_issues_are_the_ones_the_bot_works_around():
    rows = _table(_page("paper.md"), "| issue | what mcbot does |")
    documented = [set(re.findall(r"issues/(\d+)", cells[0])) for cells in rows]
    real = [{ref.rsplit("#", 1)[1] for ref in issue.refs} for issue in KNOWN_ISSUES]
    assert documented == real


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: p.name)
def test_pages_cite_nothing_outside_the_repository(path):
    text, page = _text(path), path.name
    for outside in ("shared/design", "specs/", "issue 19", "the spec's", "§"):
        assert outside not in text, f"{page} cites {outside!r}, which a clone does not have"
