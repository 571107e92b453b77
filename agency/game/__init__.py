"""The game: what Minecraft is, as agency knows it. minecraft-data's items, recipes and foods
for the version played (mcdata), the crafting recipe book over them (recipes), furnace
recipes and fuels (furnace), foods (foods), the animals hunted for them (animals), and which
tool harvests which block, with its drops and durability (harvest, from minecraft-data).

Data and pure lookups only, no Body: the bottom room, importing nothing from the other rooms
(the shared models only: names, blocks). See agency/layers.py.
"""
