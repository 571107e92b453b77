"""The house's layer order, read from the code's own imports (every import, including the
ones inside functions): agency/layers.py and bot/layers.py declare it, this test holds it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from agency import layers as agency_layers
from bot import layers as bot_layers

ROOT = Path(__file__).resolve().parents[2]


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module or module.attribute) for every import in the file."""
    return _imports_of(name, path.read_text(encoding="utf-8"), package=path.name == "__init__.py")


def _imports_of(name: str, source: str, *, package: bool = False) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
            found.append((node.lineno, module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def _targets(package: str) -> dict[str, set[tuple[int, str]]]:
    """Each module's imports of its own package, resolved to modules."""
    mods = _modules(package)
    graph: dict[str, set[tuple[int, str]]] = {}
    for name, path in mods.items():
        graph[name] = {
            (line, dotted)
            for line, dotted in _imports(name, path)
            if dotted in mods and dotted != name and dotted.split(".")[0] == package
        }
    return graph


def _room(module: str, rooms: tuple[str, ...]) -> str | None:
    matches = [r for r in rooms if module == r or module.startswith(r + ".")]
    return max(matches, key=len) if matches else None


def test_agency_imports_follow_the_declared_layer_order() -> None:
    wrong = [
        f"{agency_layers.room_of(src) or 'shared'}: {src}:{line} imports {dst} "
        f"({agency_layers.room_of(dst) or 'shared'})"
        for src, deps in _targets("agency").items()
        for line, dst in deps
        if not agency_layers.may_import(src, dst)
    ]
    assert wrong == []


def test_every_agency_module_lives_in_a_declared_room_or_is_shared() -> None:
    top_level = {name for name in _modules("agency") if name.count(".") == 1}
    packages = {name for name in _modules("agency") if (ROOT / name.replace(".", "/")).is_dir()}
    undeclared = sorted(p for p in packages if p != "agency" and agency_layers.room_of(p) is None)
    assert undeclared == []
    assert "agency.layers" in top_level


def test_every_room_is_a_folder_of_its_own_at_agencys_top() -> None:
    # a room inside another room's folder would sit on a floor its folder does not show
    nested = [room for room in agency_layers.LAYERS if room.count(".") != 1]
    assert nested == []
    assert all((ROOT / room.replace(".", "/") / "__init__.py").is_file() for room in agency_layers.LAYERS)


def _outside_imports(name: str, imports: list[tuple[int, str]]) -> list[str]:
    """What an agency module imports from outside that it may not: the runtime and the web
    libraries anywhere, a network library outside agency.llm, a PostgreSQL client outside
    agency.pg."""
    wrong = []
    room = agency_layers.room_of(name)
    for line, dotted in imports:
        top = dotted.split(".")[0]
        if top in agency_layers.FORBIDDEN:
            wrong.append(f"{name}:{line} imports {dotted}")
        if top in agency_layers.NETWORK and room != agency_layers.NETWORK_ROOM:
            wrong.append(f"{name}:{line} imports {dotted} outside {agency_layers.NETWORK_ROOM}")
        if top in agency_layers.PG_CLIENTS and room != agency_layers.PG_ROOM:
            wrong.append(f"{name}:{line} imports {dotted} outside {agency_layers.PG_ROOM}")
    return wrong


def test_agency_never_imports_the_runtime_or_the_network() -> None:
    wrong = [w for name, path in _modules("agency").items() for w in _outside_imports(name, _imports(name, path))]
    assert wrong == []


def test_the_import_check_catches_a_postgresql_client_outside_agency_pg() -> None:
    at_import = "import sqlite3\nimport psycopg\n"
    in_a_function = "def f():\n    from psycopg.errors import UniqueViolation\n    return UniqueViolation\n"
    assert _outside_imports("agency.goals.key_index", _imports_of("agency.goals.key_index", at_import)) == [
        "agency.goals.key_index:2 imports psycopg outside agency.pg"
    ]
    assert _outside_imports("agency.db", _imports_of("agency.db", in_a_function)) == [
        "agency.db:2 imports psycopg.errors.UniqueViolation outside agency.pg",
        "agency.db:2 imports psycopg.errors outside agency.pg",
    ]
    assert _outside_imports("agency.pg.database", _imports_of("agency.pg.database", at_import + in_a_function)) == []
    assert _outside_imports("agency.llm.providers.openai", _imports_of("agency.llm.x", "import httpx\n")) == []
    assert _outside_imports("agency.goals.x", _imports_of("agency.goals.x", "import httpx\n")) == [
        "agency.goals.x:1 imports httpx outside agency.llm"
    ]


def test_bot_imports_follow_the_declared_layer_order() -> None:
    order = bot_layers.LAYERS
    wrong = []
    for src, deps in _targets("bot").items():
        if src in ("bot", "bot.__main__", "bot.layers"):
            continue
        here = _room(src, order)
        assert here is not None, f"{src} is in no room of bot/layers.py"
        for line, dst in deps:
            there = _room(dst, order)
            if there is not None and order.index(there) > order.index(here):
                wrong.append(f"{src}:{line} imports {dst} ({there} is above {here})")
    assert wrong == []


@pytest.mark.parametrize("package", ["agency", "bot"])
def test_no_import_circles_between_modules(package: str) -> None:
    graph = {src: {dst for _, dst in deps} for src, deps in _targets(package).items()}
    # a package's __init__ that re-exports its modules is not a circle with them
    graph = {
        src: {d for d in deps if not (src.startswith(d + ".") and (ROOT / d.replace(".", "/")).is_dir())}
        for src, deps in graph.items()
    }
    circles = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert circles == []


@pytest.mark.parametrize("package", ["agency", "bot"])
def test_every_room_says_what_it_does(package: str) -> None:
    bare = [
        str(p.relative_to(ROOT))
        for p in (ROOT / package).rglob("__init__.py")
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert bare == []


def test_the_layer_check_catches_an_upward_import() -> None:
    assert not agency_layers.may_import("agency.perception.stimuli", "agency.cognition.drive_tick")
    assert not agency_layers.may_import("agency.tools.combat", "agency.shelter.door")
    assert not agency_layers.may_import("agency.tools.combat", "agency.execution.executor")
    assert agency_layers.may_import("agency.shelter.door", "agency.tools.base")
    assert not agency_layers.may_import("agency.game.recipes", "agency.perception.stimuli")
    assert agency_layers.may_import("agency.tools.crafting", "agency.game.recipes")
    assert agency_layers.may_import("agency.execution.reflexes", "agency.shelter.door")
    assert not agency_layers.may_import("agency.world", "agency.planning.tasks.models")
    assert agency_layers.may_import("agency.goals.router", "agency.world")


def test_agency_loads_without_psycopg_and_catches_postgresql_refusals_once_agency_pg_is_loaded() -> None:
    rooms = [r for r in agency_layers.LAYERS if r != agency_layers.PG_ROOM]
    script = "\n".join(
        [
            "import importlib, sys",
            "from agency.db import integrity_errors",
            *[
                f"importlib.import_module({m!r})"
                for m in sorted(_modules("agency"))
                if agency_layers.room_of(m) in rooms or agency_layers.room_of(m) is None
            ],
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'psycopg')[:1])",
            "print([e.__module__ for e in integrity_errors()])",
            "import agency.pg.database",
            "print([e.__module__ for e in integrity_errors()])",
        ]
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "['sqlite3']", "['sqlite3', 'psycopg']"]
