"""minecraft-data, read by Python: the game's own items, crafting recipes, foods, and block
and entity loot for one Minecraft version, from the JSON files of the minecraft-data package node
already installs (node/node_modules/minecraft-data). Read offline and once per version, so planning, unit
tests and replay need no server and no node process.

The version is the one the bot plays (`use_version`, set by the daemon from the server it
joins); until told, the newest version we claim. MCBOT_MINECRAFT_DATA names another copy of
the package's data folder.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from agency.errors import AgencyError

DEFAULT_VERSION = "26.1"  # the newest version we claim: bot/config's default embedded_version
_PACKAGE_DATA = Path(__file__).resolve().parents[2] / "node" / "node_modules" / "minecraft-data" / "minecraft-data"
_version = DEFAULT_VERSION


class GameDataMissing(AgencyError, RuntimeError):
    """minecraft-data is not installed, or has no data for the version."""


@dataclass(frozen=True)
class GameData:
    version: str
    items: dict[str, dict[str, Any]]  # name -> minecraft-data's item record
    item_names: dict[int, str]  # id -> name
    recipes: dict[str, list[dict[str, Any]]]  # result item name -> minecraft-data's recipes for it
    foods: dict[str, dict[str, Any]]  # name -> food record (foodPoints, saturation)
    blocks: frozenset[str] = frozenset()  # the block names
    entity_loot: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # entity -> its drops
    block_loot: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # block -> its drops


def use_version(version: str) -> None:
    """Answer for `version` from now on (the version of the server the bot plays on)."""
    global _version
    load(version)  # fails here, naming the version, rather than at the first plan
    _version = version


def current_version() -> str:
    return _version


def data() -> GameData:
    """The data of the version in use."""
    return load(_version)


def _data_dir() -> Path:
    override = os.environ.get("MCBOT_MINECRAFT_DATA")
    return Path(override) if override else _PACKAGE_DATA / "data"


def _read(folder: str, kind: str) -> Any:
    path = _data_dir() / folder / f"{kind}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GameDataMissing(f"minecraft-data has no {path} (run `make install`)") from None


@cache
def load(version: str) -> GameData:
    paths_file = _data_dir() / "dataPaths.json"
    if not paths_file.exists():
        raise GameDataMissing(f"minecraft-data is not installed: no {paths_file} (run `make install`)")
    paths = json.loads(paths_file.read_text(encoding="utf-8"))["pc"].get(version)
    if paths is None:
        raise GameDataMissing(f"minecraft-data has no Minecraft {version}")
    items = _read(paths["items"], "items")
    names = {int(i["id"]): str(i["name"]) for i in items}
    raw = _read(paths["recipes"], "recipes")
    recipes: dict[str, list[dict[str, Any]]] = {}
    for result_id, rs in raw.items():
        name = names.get(int(result_id))
        made = [r for r in (_named(r, names) for r in rs) if r["count"] > 0]  # a map's zoom makes "air" x0
        if name is not None and name != "air" and made:
            recipes[name] = made
    foods = {str(f["name"]): f for f in _read(paths["foods"], "foods")} if "foods" in paths else {}
    blocks = frozenset(str(b["name"]) for b in _read(paths["blocks"], "blocks"))
    loot = {str(e["entity"]): list(e["drops"]) for e in _read(paths["entityLoot"], "entityLoot")}
    block_loot = {str(b["block"]): list(b["drops"]) for b in _read(paths["blockLoot"], "blockLoot")}
    return GameData(version, {str(i["name"]): i for i in items}, names, recipes, foods, blocks, loot, block_loot)


def _named(recipe: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """A recipe with item names for ids: {"shape": rows of names or None} or
    {"ingredients": [names]}, and {"count": n} made."""

    def name(ref: Any) -> str | None:
        if ref is None:
            return None
        if isinstance(ref, dict):  # {"id": n, "count": k} in some versions
            ref = ref.get("id")
        return None if ref is None or int(ref) < 0 else names.get(int(ref))

    made = recipe["result"]
    count = int(made.get("count", 1)) if isinstance(made, dict) else 1
    if "inShape" in recipe:
        return {"shape": [[name(c) for c in row] for row in recipe["inShape"]], "count": count}
    return {"ingredients": [name(c) for c in recipe.get("ingredients", []) if name(c) is not None], "count": count}
