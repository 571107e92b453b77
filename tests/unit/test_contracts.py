"""docs/contracts.md stays true: every contract id the code cites is defined there, every
earlier name the code still uses (test names, `make checks` output) maps to one, every test
it names exists, and no comment or docstring cites a document a clone does not have."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "contracts.md"

ENTRY = re.compile(r"^- \*\*([A-Z]+-\d+)\*\* ", re.M)
TEST_REF = re.compile(r"`((?:tests|node)/[^`:]+)::([^`]+)`")
ALIAS_ROW = re.compile(r"^\| `([^`]+)` \| ([A-Z]+-\d+) \|$", re.M)

# Where code, comments and docstrings live. Data files (JSON fixtures, lockfiles) and
# node's installed packages are not ours to read.
SCANNED_DIRS = ("agency", "bot", "node", "tests", "scripts", "config", "docs")
SCANNED_FILES = ("Makefile", "pyproject.toml", "README.md")
SUFFIXES = {".py", ".js", ".sh", ".toml", ".md", ".sql", ".html", ".css"}
SKIPPED_PARTS = {"node_modules", "__pycache__", ".venv"}
# These two name the citations they forbid.
SELF = {Path(__file__).resolve(), (ROOT / "tests" / "unit" / "test_docs.py").resolve()}

# UPPER-number tokens that are not contract ids: UTF-8, the XML transport's NONCE-0001
# slots, the hut's SIZE-2 floor.
NOT_IDS = {"UTF", "NONCE", "SIZE"}

# Earlier names as they appear in text, and as they appear in test function names.
EARLIER_IN_TEXT = [
    re.compile(r"\b(?:KA-A|SC-B|EV-C|PA-D|MV-E)\d\b"),
    re.compile(r"\bI-\d\b"),
    re.compile(r"\bINV(?:-[A-Z]+)+-\d{3}\b"),
]

OUTSIDE = [
    (re.compile("\u00a7"), "a section sign"),
    # node/test/server_contract.test.js's player is named "contract" (/mcbot food contract 7 2)
    (
        re.compile(r"(?<!food )(?<!damage )(?<!health )(?<!\d )\b[Cc]ontract (?:sections? )?\d"),
        "a numbered contract section",
    ),
    (re.compile(r"\b[Cc]ontract B\b"), "a lettered contract rule"),
    (
        re.compile(r"\bspec's\b|\bthe specs\b|\bspecs'|\bspecs?[ /]README\b|\bkeep-alive spec\b|\bspecs/"),
        "the specifications",
    ),
    (re.compile(r"shared/(?:design|specs)"), "the shared design folder"),
    (re.compile(r"\bSTYLE(?:\.md)? ?#\d|design/STYLE|ARCHITECTURE\.md"), "the design notes"),
    (re.compile(r"bridge-notes"), "the bridge notes"),
    (re.compile(r"\bprotocol [A-G]\b|goal-binding-protocol\.md|\bprotocol \"source"), "a goal-binding section"),
    (re.compile(r"\btraps? \d"), "a numbered bridge trap"),
    (re.compile(r"\b[Ii]ssue \d+\b"), "an issue number"),
]


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _ids() -> list[str]:
    return ENTRY.findall(_doc())


def _aliases() -> dict[str, str]:
    return dict(ALIAS_ROW.findall(_doc()))


def _entries() -> dict[str, str]:
    """Each id with the text of its entry (up to the next entry or heading)."""
    text = _doc()
    starts = [(m.start(), m.group(1)) for m in ENTRY.finditer(text)]
    out = {}
    for i, (start, id_) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        heading = text.find("\n## ", start)
        out[id_] = text[start : heading if 0 <= heading < end else end]
    return out


def _scanned() -> list[Path]:
    files = [ROOT / f for f in SCANNED_FILES if (ROOT / f).is_file()]
    for d in SCANNED_DIRS:
        for folder, subfolders, names in os.walk(ROOT / d):
            subfolders[:] = [s for s in subfolders if s not in SKIPPED_PARTS]
            files += [Path(folder, n) for n in names if Path(n).suffix in SUFFIXES]
    return [p for p in files if p.resolve() not in SELF]


@pytest.fixture(scope="module")
def sources() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8", errors="replace") for p in _scanned()}


def _where(path: Path, text: str, pos: int) -> str:
    return f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, pos) + 1}"


def test_ids_are_unique_and_numbered_from_one_in_each_group():
    ids = _ids()
    assert len(ids) > 100, "a broken parse of docs/contracts.md would find none"
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    groups: dict[str, list[int]] = defaultdict(list)
    for id_ in ids:
        prefix, n = id_.rsplit("-", 1)
        groups[prefix].append(int(n))
    for prefix, numbers in groups.items():
        assert numbers == list(range(1, len(numbers) + 1)), f"{prefix}: {numbers}"


def test_every_entry_names_a_test_and_every_test_named_exists():
    missing = []
    for id_, entry in _entries().items():
        refs = TEST_REF.findall(entry)
        assert refs, f"{id_} names no test"
        for file, name in refs:
            path = ROOT / file
            if not path.is_file():
                missing.append(f"{id_}: {file} (no such file)")
                continue
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".py":
                found = re.search(rf"^\s*(?:async\s+)?def {re.escape(name)}\(", text, re.M)
            else:
                found = f"test('{name}'" in text
            if not found:
                missing.append(f"{id_}: {file}::{name} (no such test)")
    assert not missing, "\n".join(missing)


def test_every_earlier_name_maps_to_a_defined_id():
    ids, aliases = set(_ids()), _aliases()
    assert len(aliases) > 40
    assert not {a: i for a, i in aliases.items() if i not in ids}


def test_every_id_the_code_cites_is_defined(sources):
    ids = set(_ids())
    prefixes = {i.rsplit("-", 1)[0] for i in ids}
    token = re.compile(r"(?<![-\w])([A-Z]{3,})-(\d+)\b")  # INV-AGT-001 is an earlier name
    unknown = []
    for path, text in sources.items():
        for m in token.finditer(text):
            prefix, id_ = m.group(1), m.group(0)
            if prefix in NOT_IDS:
                continue
            if prefix not in prefixes or id_ not in ids:
                unknown.append(f"{_where(path, text, m.start())}: {id_}")
    assert not unknown, "ids cited but not defined in docs/contracts.md:\n" + "\n".join(unknown)


def _earlier_names_in_test_name(name: str) -> list[str]:
    found = [
        f"{a.upper()}-{b.upper()}{n}"
        for a, b, n in re.findall(r"(?i)(?<![a-z0-9])(ka|sc|ev|pa|mv)_([a-e])(\d)(?![0-9])", name)
    ]
    found += [f"I-{n}" for n in re.findall(r"(?<=^test_)I(\d)(?=_)", name)]
    found += [f"INV-{body.replace('_', '-')}-{n}" for body, n in re.findall(r"INV_([A-Z_]+?)_(\d{3})", name)]
    found += ["6.1"] if name.startswith("test_6_1_") else []
    found += ["contract B"] if re.search(r"_contract_B(?:_|$)", name) else []
    return found


def test_the_earlier_name_finder_reads_each_form():
    assert _earlier_names_in_test_name("test_KA_A8_x") == ["KA-A8"]
    assert _earlier_names_in_test_name("test_ev_c3_x") == ["EV-C3"]
    assert _earlier_names_in_test_name("test_I2_x") == ["I-2"]
    assert _earlier_names_in_test_name("test_INV_AGT_SEL_004_x") == ["INV-AGT-SEL-004"]
    assert _earlier_names_in_test_name("test_6_1_development_injection_still_hits_the_KA_A8_gate") == ["KA-A8", "6.1"]
    assert _earlier_names_in_test_name("test_x_contract_B") == ["contract B"]
    assert _earlier_names_in_test_name("test_the_zombie_in_a_hut") == []


def test_every_earlier_name_the_code_uses_is_listed(sources):
    aliases = set(_aliases())
    unlisted = []
    for path, text in sources.items():
        for pattern in EARLIER_IN_TEXT:
            for m in pattern.finditer(text):
                if m.group(0) not in aliases:
                    unlisted.append(f"{_where(path, text, m.start())}: {m.group(0)}")
        if path.suffix == ".py":
            for m in re.finditer(r"def (test_\w+)\(", text):
                unlisted += [
                    f"{_where(path, text, m.start())}: {a} (in {m.group(1)})"
                    for a in _earlier_names_in_test_name(m.group(1))
                    if a not in aliases
                ]
    assert not unlisted, "earlier names not in docs/contracts.md's table:\n" + "\n".join(unlisted)


def test_no_comment_cites_a_document_outside_the_repository(sources):
    found = []
    for path, text in sources.items():
        if path == DOC:
            continue  # its table of earlier names quotes them
        for pattern, what in OUTSIDE:
            for m in pattern.finditer(text):
                found.append(f"{_where(path, text, m.start())}: {what} ({m.group(0)!r})")
    assert not found, "cite docs/contracts.md ids instead:\n" + "\n".join(found)
